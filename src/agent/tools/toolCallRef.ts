/**
 * Which call of which request of which turn a tool runs for. Its own file because the tool context
 * carries it and so does a subagent request, whose port the tool context holds.
 */
export interface ToolCallRef {
  readonly turnId: string;
  readonly requestSeq: number;
  readonly toolCallId: string;
}
