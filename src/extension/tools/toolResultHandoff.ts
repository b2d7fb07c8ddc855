import type { ToolResult } from '../../agent/tools/tool';
import { canonicalJson } from '../../tape/canonicalJson';

/**
 * Carries a call's structured result from our registered tool's invoke back to the chat toolbox
 * that asked VS Code to run it. `vscode.lm.invokeTool` returns text parts only, and the toolbox
 * needs the status and the truncation flag the core gave, and whether the call ran at all (a
 * skipped confirmation also resolves with text). Calls are matched by tool name and input, so
 * concurrent requests with different inputs never see each other's results; two identical calls
 * in flight at once are served in order.
 */
export class ToolResultHandoff {
  private readonly waiting = new Map<string, Slot[]>();

  /** Opens a slot before the call is handed to VS Code; `take` closes it and gives what was reported, if anything. */
  expect(name: string, input: unknown): { take(): ToolResult | undefined } {
    const key = callKey(name, input);
    const slot: Slot = {};
    this.waiting.set(key, [...(this.waiting.get(key) ?? []), slot]);
    return {
      take: () => {
        const rest = (this.waiting.get(key) ?? []).filter((s) => s !== slot);
        if (rest.length > 0) this.waiting.set(key, rest);
        else this.waiting.delete(key);
        return slot.result;
      },
    };
  }

  /** A result nobody waits for (a call from another extension, or Copilot) is dropped. */
  report(name: string, input: unknown, result: ToolResult): void {
    const slot = this.waiting.get(callKey(name, input))?.find((s) => s.result === undefined);
    if (slot) slot.result = result;
  }
}

interface Slot {
  result?: ToolResult;
}

/**
 * The extension host's one handoff: registered tools are global to the process, and so are their
 * calls. Kept on globalThis so that a second copy of this module (the compiled integration tests
 * beside the extension's bundle) meets the same one.
 */
export const toolResults: ToolResultHandoff = shared(Symbol.for('agent-tape.toolResults'));

function shared(key: symbol): ToolResultHandoff {
  const holder = globalThis as { [key]?: ToolResultHandoff };
  return (holder[key] ??= new ToolResultHandoff());
}

/**
 * A call's identity: the name and the input's canonical JSON. The input reaches our invoke through
 * VS Code's JSON messages, so key order and `undefined` fields must not matter: it is keyed as
 * that trip leaves it, where JSON.stringify has dropped the `undefined` fields canonicalJson
 * refuses. The key is only compared in memory, never stored or hashed.
 */
export function callKey(name: string, input: unknown): string {
  return `${name}\n${canonicalJson(JSON.parse(JSON.stringify(input ?? null)))}`;
}
