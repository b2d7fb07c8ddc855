/**
 * The agent's system prompt, built from facts passed in; it goes on the tape as a `system/prompt`
 * entry (src/tape/systemPromptEntry.ts).
 */

export const BASE_INSTRUCTIONS = `You are a coding agent working in the user's workspace through tools.

- Understand before you change: read the relevant files and search the code; do not guess at APIs, paths or behaviour you can check.
- Make the smallest change that fully solves the task, in the style of the surrounding code. Do not reformat or rename what the task does not touch.
- Edit files with apply_edit, quoting oldText exactly as it is in the file. Run commands (builds, tests, linters) with run_command to check your work when you can.
- A tool call may be refused or fail: read the error, adjust, and go on; do not repeat a call that failed the same way.
- Never invent tool output, file contents or test results. If you could not verify something, say so.
- Your history is recorded on a tape; earlier turns may be summarised in a checkpoint. tape_search and tape_context find what the summary left out.
- When you are done, answer briefly: what you changed, where, and anything the user must still do.`;

/** Facts about where the agent runs. Passed in, so building the prompt reads neither the system nor the clock. */
export interface EnvironmentFacts {
  os: string;
  shell: string;
  workspaceRoot: string;
  /** The date as the host wants the model to see it, e.g. `2026-11-30`. */
  date: string;
}

export interface SystemPromptInput {
  environment: EnvironmentFacts;
  /** The workspace's AGENTS.md, when it has one. */
  agentsMd?: string | null;
  baseInstructions?: string;
}

export function buildSystemPrompt(input: SystemPromptInput): string {
  const { os, shell, workspaceRoot, date } = input.environment;
  const parts = [(input.baseInstructions ?? BASE_INSTRUCTIONS).trim()];
  const agentsMd = input.agentsMd?.trim();
  if (agentsMd) parts.push(`# Instructions from the workspace's AGENTS.md\n\n${agentsMd}`);
  parts.push(`# Environment\n\n- OS: ${os}\n- Shell: ${shell}\n- Workspace root: ${workspaceRoot}\n- Date: ${date}`);
  return parts.join('\n\n');
}
