import * as assert from 'assert';
import { inspectorCommandArgs } from '../../../src/extension/inspector/inspectorCommandArgs';

const FILE = '/home/u/shared.tape.jsonl';

describe('the commands the inspector page may run (inspectorCommandArgs)', () => {
  it('Export as OpenTelemetry… runs agentTape.exportSessionOtlp on the session shown, of the tape the page shows', () => {
    assert.deepStrictEqual(inspectorCommandArgs('agentTape.exportSessionOtlp', ['s1']), [undefined, 's1', undefined]);
    assert.deepStrictEqual(inspectorCommandArgs('agentTape.exportSessionOtlp', ['s1::fork::ab12'], { tapeFile: FILE }), [undefined, 's1::fork::ab12', FILE]);
  });

  it("refuses an export that names no session, an empty one, a number, or more than the session (a path to write or read is never the page's)", () => {
    for (const args of [[], [''], [7], ['s1', '/tmp/out.json'], ['s1', 3]])
      assert.throws(() => inspectorCommandArgs('agentTape.exportSessionOtlp', args), JSON.stringify(args));
  });

  it('refuses every command not on the list, whatever its arguments, inherited names included', () => {
    for (const name of ['workbench.action.terminal.new', 'agentTape.exportSessionOTLP', 'agentTape.deleteSession', 'toString', '__proto__', 'constructor'])
      assert.throws(
        () => inspectorCommandArgs(name, ['s1']),
        (e: Error) => e.message === `the inspector may not run the command ${JSON.stringify(name)}`,
      );
  });

  it('keeps what the others map to: a replay of the tape shown, a fork at an entry, checkpoints of the workspace tape only', () => {
    assert.deepStrictEqual(inspectorCommandArgs('agentTape.replaySession', ['s1'], { tapeFile: FILE }), [{ sessionId: 's1', tapeFile: FILE }]);
    assert.deepStrictEqual(inspectorCommandArgs('agentTape.forkSession', ['s1', 9]), ['s1', 9]);
    assert.deepStrictEqual(inspectorCommandArgs('agentTape.exportSession', ['s1']), [undefined, 's1']);
    assert.throws(() => inspectorCommandArgs('agentTape.restoreFiles', ['s1', 4], { tapeFile: FILE }), /workspace tape only/);
  });
});
