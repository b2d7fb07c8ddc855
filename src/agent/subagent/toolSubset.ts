import type { ToolDefinition } from '../model/modelPort';
import type { ToolContext, Toolbox, ToolResult } from '../tools/tool';
import type { ToolEffect } from '../tools/toolEffect';

/**
 * Some of a toolbox's tools, run by that toolbox: a subagent's tools behave exactly as its
 * parent's (in a chat, the same confirmations), and a call of any other tool is refused.
 */
export class ToolSubset implements Toolbox {
  private readonly allowed: ReadonlySet<string>;

  constructor(
    private readonly parent: Toolbox,
    names: readonly string[],
  ) {
    this.allowed = new Set(names);
  }

  names(): string[] {
    return [...this.allowed];
  }

  specs(): ToolDefinition[] {
    return this.parent.specs().filter((spec) => this.allowed.has(spec.name));
  }

  effectOf(name: string): ToolEffect | undefined {
    return this.parent.effectOf(name);
  }

  invoke(name: string, input: unknown, ctx: ToolContext): Promise<ToolResult> {
    if (!this.allowed.has(name)) {
      const available = this.allowed.size === 0 ? 'it has no tools' : `its tools: ${this.names().join(', ')}`;
      return Promise.resolve({ status: 'error', output: `${name} is not among this subagent's tools; ${available}` });
    }
    return this.parent.invoke(name, input, ctx);
  }
}
