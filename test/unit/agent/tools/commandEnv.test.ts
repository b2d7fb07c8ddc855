import * as assert from 'assert';
import { commandEnv, withheldValues } from '../../../../src/agent/workspace/commandEnv';
import { NodeWorkspace } from '../../../../src/agent/workspace/nodeWorkspace';
import { TempWorkspace } from './fixture';

const posix = process.platform !== 'win32';

describe('the environment of commands the agent runs', () => {
  it('withholds variables whose names say they hold a secret, and the ones the policy names', () => {
    const parent = {
      OPENAI_API_KEY: '1',
      ANTHROPIC_APIKEY: '2',
      GITHUB_TOKEN: '3',
      my_secret: '4',
      AWS_SECRET_ACCESS_KEY: '5',
      PGPASSWORD: '6',
      SSH_PRIVATE_KEY: '7',
      NPM_CONFIG__AUTHTOKEN: '8',
      LLM_KEY: '9',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Basic%20x',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-api-key=y',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      PATH: '/bin',
      HOME: '/home/u',
      PWD: '/w',
      TOKENIZERS_PARALLELISM: 'false',
      KEYBOARD: 'us',
      SECRETARY: 'x',
    };
    assert.deepStrictEqual(commandEnv(parent, { withhold: ['llm_key'] }), {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      PATH: '/bin',
      HOME: '/home/u',
      PWD: '/w',
      TOKENIZERS_PARALLELISM: 'false',
      KEYBOARD: 'us',
      SECRETARY: 'x',
    });
  });

  it('withheldValues: the values commandEnv keeps from commands, for an export to mask', () => {
    const env = { NPM_TOKEN: 'n-secret', GITHUB_TOKEN: 'g-secret', LLM_KEY: 'k-secret', PATH: '/bin', EMPTY_TOKEN: undefined };
    assert.deepStrictEqual(withheldValues(env).sort(), ['g-secret', 'n-secret']);
    assert.deepStrictEqual(withheldValues(env, { withhold: ['llm_key'], pass: ['NPM_TOKEN'] }).sort(), ['g-secret', 'k-secret']);
  });

  it('passes the variables the user lists, even the withheld key variable', () => {
    assert.deepStrictEqual(commandEnv({ NPM_TOKEN: 'n', GITHUB_TOKEN: 'g', LLM_KEY: 'k' }, { withhold: ['LLM_KEY'], pass: ['npm_token', 'LLM_KEY'] }), {
      NPM_TOKEN: 'n',
      LLM_KEY: 'k',
    });
  });

  describe('through the workspace', () => {
    const saved: Record<string, string | undefined> = {};
    const set = { OPENAI_API_KEY: 'sk-parent-1', GITHUB_TOKEN: 'ghp-parent-2', MY_SECRET: 'shh-parent-3', NPM_TOKEN: 'npm-parent-4' };
    let ws: TempWorkspace;
    beforeEach(() => {
      ws = new TempWorkspace();
      for (const [name, value] of Object.entries(set)) {
        saved[name] = process.env[name];
        process.env[name] = value;
      }
    });
    afterEach(() => {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      ws.dispose();
    });
    const echo = 'echo "[$OPENAI_API_KEY|$GITHUB_TOKEN|$MY_SECRET|$NPM_TOKEN]"';

    (posix ? it : it.skip)('a command sees none of them by default', async () => {
      assert.deepStrictEqual(await ws.call('run_command', { command: echo }), { status: 'ok', output: 'exit code 0\n[|||]\n' });
    });

    (posix ? it : it.skip)('a command sees the ones the workspace was told to pass', async () => {
      const workspace = new NodeWorkspace(ws.root, { commandEnv: { pass: ['NPM_TOKEN', 'GITHUB_TOKEN'] } });
      assert.deepStrictEqual(await ws.call('run_command', { command: echo }, { workspace, permissions: { edits: false, commands: true } }), {
        status: 'ok',
        output: 'exit code 0\n[|ghp-parent-2||npm-parent-4]\n',
      });
    });
  });
});
