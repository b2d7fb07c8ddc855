import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { invokeTool, ToolRegistry, type ToolContext, type ToolResult } from '../../../../src/agent/tools/tool';
import { WORKSPACE_TOOLS } from '../../../../src/agent/tools/workspaceTools';
import { NodeWorkspace } from '../../../../src/agent/workspace/nodeWorkspace';
import type { Permissions } from '../../../../src/agent/workspace/permissions';

/** A real temp directory holding `root/` (the workspace) beside `outside/`, removed after the test. */
export class TempWorkspace {
  readonly base = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tools-'));
  readonly root = path.join(this.base, 'root');
  readonly outside = path.join(this.base, 'outside');
  readonly registry = new ToolRegistry(WORKSPACE_TOOLS);

  constructor(files: Record<string, string | Buffer> = {}) {
    fs.mkdirSync(this.root);
    fs.mkdirSync(this.outside);
    fs.writeFileSync(path.join(this.outside, 'secret.txt'), 'SECRET\n');
    for (const [rel, content] of Object.entries(files)) this.write(rel, content);
  }

  write(rel: string, content: string | Buffer): void {
    const abs = path.join(this.root, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
  }

  read(rel: string): string {
    return fs.readFileSync(path.join(this.root, rel), 'utf8');
  }

  exists(rel: string): boolean {
    return fs.existsSync(path.join(this.root, rel));
  }

  ctx(permissions: Permissions = { edits: true, commands: true }, signal?: AbortSignal): ToolContext {
    return { workspace: new NodeWorkspace(this.root), permissions, signal };
  }

  call(name: string, input: unknown, ctx: ToolContext = this.ctx()): Promise<ToolResult> {
    return invokeTool(this.registry, name, input, ctx);
  }

  dispose(): void {
    fs.rmSync(this.base, { recursive: true, force: true });
  }
}
