import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { TapeStore } from '../../../src/store/tapeStore';
import { CODING_SESSION, SAMPLE_NAME } from '../../support/demoTapes';

// Compiled to <out>/test/unit/extension/, four levels below the repository root.
const root = path.resolve(__dirname, '../../../..');

interface Step {
  id: string;
  title: string;
  description: string;
  media: { markdown?: string };
  completionEvents?: string[];
}
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  contributes: {
    commands: { command: string; title: string }[];
    walkthroughs: { id: string; title: string; steps: Step[] }[];
    viewsWelcome: { view: string; contents: string }[];
    views: Record<string, { id: string }[]>;
  };
};
const contributes = manifest.contributes;
const ours = new Set(contributes.commands.map((c) => c.command));
// Where src/extension/sampleTape.ts finds the sample in the extension (the integration test opens it through its command).
const SAMPLE_TAPE = `demo/samples/${SAMPLE_NAME}`;
const linksOf = (markdown: string): string[] => [...markdown.matchAll(/\]\(command:([\w.]+)/g)].map((m) => m[1]);

describe('package.json walkthrough and welcome content (first run)', () => {
  const [walkthrough] = contributes.walkthroughs;

  it('one walkthrough, its steps in the order of a first run: the sample in the inspector, its replay, a model, @tape', () => {
    assert.strictEqual(contributes.walkthroughs.length, 1);
    assert.strictEqual(walkthrough.id, 'agentTape.firstRun');
    assert.deepStrictEqual(
      walkthrough.steps.map((s) => [s.id, linksOf(s.description)]),
      [
        ['openSample', ['agentTape.openSampleTape']],
        ['replaySample', ['agentTape.replaySampleTape']],
        ['setUpModel', ['agentTape.setUpModel']],
        ['askTape', ['agentTape.newSession']],
      ],
    );
  });

  it('each step links a contributed command, completes on it, and has a markdown page that ships', () => {
    const ignore = fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8').split('\n');
    for (const step of walkthrough.steps) {
      for (const command of linksOf(step.description)) {
        assert.ok(ours.has(command), `${step.id}: ${command} is contributed`);
        assert.ok(step.completionEvents?.includes(`onCommand:${command}`), `${step.id} completes on its command`);
      }
      for (const event of step.completionEvents ?? []) {
        const [kind, what] = event.split(':');
        if (kind === 'onCommand') assert.ok(ours.has(what), `${step.id}: ${what} is contributed`);
        else assert.ok(['onSettingChanged', 'onView', 'onContext'].includes(kind), `${step.id}: ${event} is a completion event VS Code knows`);
      }
      const media = step.media.markdown;
      assert.ok(media !== undefined && fs.existsSync(path.join(root, media)), `${step.id}: ${media} exists`);
      assert.ok(ignore.includes('!media/walkthrough/*.md') && media.startsWith('media/walkthrough/'), `${media} is in the package`);
    }
    assert.ok(ignore.includes(`!${SAMPLE_TAPE}`), 'the sample tape is in the package');
  });

  it('the Tape Sessions view, while empty, offers the sample, the model set-up and the walkthrough', () => {
    const views = Object.values(contributes.views)
      .flat()
      .map((v) => v.id);
    const [welcome] = contributes.viewsWelcome;
    assert.strictEqual(welcome.view, 'agentTapeSessions');
    assert.ok(views.includes(welcome.view));
    assert.deepStrictEqual(linksOf(welcome.contents), ['agentTape.openSampleTape', 'agentTape.setUpModel', 'workbench.action.openWalkthrough']);
    assert.ok(
      welcome.contents.includes(`command:workbench.action.openWalkthrough?${encodeURIComponent(JSON.stringify(`agent-tape.agent-tape#${walkthrough.id}`))}`),
    );
  });

  it('the sample the commands open is the committed one, and has the session they replay', async () => {
    assert.match(
      fs.readFileSync(path.join(root, 'src/extension/sampleTape.ts'), 'utf8'),
      new RegExp(`SAMPLE_TAPE = '${SAMPLE_TAPE}';[^]*SAMPLE_SESSION = '${CODING_SESSION}';`),
    );
    const store = await TapeStore.open(path.join(root, SAMPLE_TAPE), { readOnly: true });
    try {
      assert.ok(store.sessions().some((s) => s.sessionId === CODING_SESSION));
    } finally {
      await store.close();
    }
  });
});
