import { defaultTools } from '../../agent/agentSession';
import { RUN_SUBAGENT } from '../../agent/subagent/subagentPort';
import type { ToolRegistry } from '../../agent/tools/tool';
import { asksFirst, type ToolEffect } from '../../agent/tools/toolEffect';

/**
 * What package.json's `contributes.languageModelTools` says about each core tool. VS Code reads
 * the contribution, not the registered tool, for the name, schema and description it shows the
 * model, so they are generated from the core (scripts/tool-contributions.mjs) and checked for
 * drift by a unit test. Kept free of `vscode` so the script and plain-Node tests can load it.
 */
export interface ToolContribution {
  readonly name: string;
  readonly displayName: string;
  readonly toolReferenceName: string;
  readonly canBeReferencedInPrompt: true;
  readonly userDescription: string;
  readonly modelDescription: string;
  readonly icon: string;
  readonly tags: readonly string[];
  readonly when?: string;
  readonly inputSchema: Record<string, unknown>;
}

interface Presentation {
  readonly displayName: string;
  readonly userDescription: string;
  /** A codicon, `$(name)`. */
  readonly icon: string;
  /** What the tool is about; the tag of what it does follows from its effect (EFFECT_TAGS). */
  readonly tags: readonly string[];
}

const EFFECT_TAGS: Readonly<Record<ToolEffect, string>> = { read: 'read', tape: 'write', edit: 'edit', command: 'terminal', delegate: 'agent' };

/** A tool that asks first is offered only in a trusted workspace (and refused again when invoked in another). */
const WHEN_TRUSTED = 'isWorkspaceTrusted';

/**
 * Core tools VS Code is not given: run_subagent drives a child agent with a model and links it to a
 * session on the tape. A call from another chat (Copilot's agent mode, a `#` reference) comes with
 * neither a model we may drive nor a tape session to link to, so it is offered in `@tape` only.
 */
export const CHAT_ONLY_TOOLS: ReadonlySet<string> = new Set([RUN_SUBAGENT]);

/** The core tools registered with VS Code and contributed in package.json, in the core's order. */
export function contributedToolNames(tools: ToolRegistry = defaultTools()): string[] {
  return tools.names().filter((name) => !CHAT_ONLY_TOOLS.has(name));
}

const PRESENTATION: Readonly<Record<string, Presentation>> = {
  read_file: {
    displayName: 'Read File',
    userDescription: 'Read a text file of the workspace, or some of its lines.',
    icon: '$(file)',
    tags: ['workspace'],
  },
  list_dir: {
    displayName: 'List Directory',
    userDescription: 'List the entries of a workspace directory.',
    icon: '$(folder-opened)',
    tags: ['workspace'],
  },
  find_files: {
    displayName: 'Find Files',
    userDescription: 'Find workspace files by glob, leaving out what .gitignore ignores.',
    icon: '$(files)',
    tags: ['workspace', 'search'],
  },
  search_text: {
    displayName: 'Search Text',
    userDescription: 'Search the text of workspace files line by line.',
    icon: '$(search)',
    tags: ['workspace', 'search'],
  },
  apply_edit: {
    displayName: 'Apply Edit',
    userDescription: 'Replace one exact piece of a file, or create or overwrite a file (asks first).',
    icon: '$(edit)',
    tags: ['workspace'],
  },
  run_command: {
    displayName: 'Run Command',
    userDescription: 'Run a shell command in the workspace folder (asks first).',
    icon: '$(terminal)',
    tags: ['workspace'],
  },
  tape_search: { displayName: 'Search Tape', userDescription: "Full-text search of this session's tape.", icon: '$(history)', tags: ['tape', 'search'] },
  tape_context: {
    displayName: 'Tape Context',
    userDescription: "Show entries of this session's tape with their neighbours.",
    icon: '$(list-flat)',
    tags: ['tape'],
  },
  tape_handoff: {
    displayName: 'Tape Handoff',
    userDescription: 'Leave a handoff anchor on the tape: a summary the next context starts from (asks first when another chat calls it).',
    icon: '$(bookmark)',
    tags: ['tape'],
  },
  tape_info: { displayName: 'Tape Info', userDescription: "This session's id, title, head and entry counts.", icon: '$(info)', tags: ['tape'] },
  tape_anchors: {
    displayName: 'Tape Anchors',
    userDescription: "The anchors of this session's tape and the one the context starts from.",
    icon: '$(pinned)',
    tags: ['tape'],
  },
};

/** One contribution per contributed core tool, in the core's order. */
export function toolContributions(tools: ToolRegistry = defaultTools()): ToolContribution[] {
  return tools
    .specs()
    .filter((spec) => !CHAT_ONLY_TOOLS.has(spec.name))
    .map((spec) => {
      const shown = PRESENTATION[spec.name];
      if (shown === undefined) throw new Error(`core tool "${spec.name}" has no presentation in src/extension/tools/toolContributions.ts`);
      const effect = tools.effectOf(spec.name);
      if (effect === undefined) throw new Error(`core tool "${spec.name}" has no effect`);
      return {
        name: spec.name,
        displayName: shown.displayName,
        toolReferenceName: spec.name,
        canBeReferencedInPrompt: true,
        userDescription: shown.userDescription,
        modelDescription: spec.description,
        icon: shown.icon,
        tags: ['agent-tape', ...shown.tags, EFFECT_TAGS[effect]],
        ...(asksFirst(effect) ? { when: WHEN_TRUSTED } : {}),
        inputSchema: spec.parameters,
      };
    });
}
