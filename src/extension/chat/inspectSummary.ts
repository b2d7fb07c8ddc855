import { VIEW_ASSEMBLED } from '../../tape/entryNames';
import type { SessionHandle } from '../../agent/session/sessionHandle';
import { ProjectionRegistry, ProjectionRunner } from '../../tape/projections/projection';
import { tokenUsageProjection } from '../../tape/projections/tokenUsage';
import { toolStatsProjection } from '../../tape/projections/toolStats';
import { codeCell, codeSpan as code } from '../tools/markdownCode';

const number = (n: number): string => n.toLocaleString('en-US');

/**
 * What `/inspect` answers: the session's tape at a glance (entries by kind, anchors and the one in
 * force, requests, tokens, tools), as markdown whose tape-provided text sits in code spans.
 */
export function inspectSummary(session: SessionHandle): string {
  const { store, sessionId } = session;
  const tape = session.tapePort();
  const info = tape.info();
  if (info.headEntryId === 0) return `The tape has no entries for this chat yet (session ${code(sessionId)}). Ask \`@tape\` something first.`;
  const runner = new ProjectionRunner(store, new ProjectionRegistry());
  const usage = runner.view(sessionId, tokenUsageProjection);
  const tools = runner.view(sessionId, toolStatsProjection);
  const requests = store.foldRows(sessionId, 0).filter((r) => r.kind === 'event' && r.name === VIEW_ASSEMBLED).length;
  const lines = [
    `**${info.title === null ? 'Untitled session' : code(info.title)}**: session ${code(sessionId)}, ${number(info.headEntryId)} entries.`,
    '',
    '| kind | entries |',
    '| --- | ---: |',
    ...Object.entries(info.entriesByKind).map(([kind, n]) => `| ${codeCell(kind)} | ${number(n ?? 0)} |`),
    '',
    `**Requests**: ${number(requests)} (${number(usage.attempts)} attempts); tokens in ${number(usage.inputTokens)}, out ${number(usage.outputTokens)}, cached ${number(usage.cachedTokens)}.`,
  ];
  const anchors = tape.anchors();
  lines.push('', anchors.length === 0 ? '**Anchors**: none.' : '**Anchors** (the next request starts from the one in force):');
  for (const a of anchors) lines.push(`- #${a.entryId} ${code(a.name)}${a.inForce ? ' **in force**' : ''}`);
  const used = Object.entries(tools);
  if (used.length > 0) {
    lines.push('', '**Tools**: ' + used.map(([name, s]) => `${code(name)} ×${s.calls}${s.error > 0 ? ` (${s.error} failed)` : ''}`).join(', '));
  }
  return lines.join('\n');
}
