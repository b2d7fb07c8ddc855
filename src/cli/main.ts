import { CheckpointMissingError, StalePlanError } from '../agent/checkpoints/checkpointStore';
import { NoCheckpointError, WrongWorkspaceError } from '../agent/checkpoints/restore';
import { errorMessage } from '../tape/errorMessage';
import { ForkRefusedError } from '../tape/fork';
import { TapeFileError, TapeLockedError, TapeQueryError } from '../store/errors';
import { ContextSelectionError } from '../tape/context';
import { CompactionAuditError } from '../tape/audit/compactionAudit';
import { TapeValidationError } from '../tape/entry';
import { RebuildError } from '../rerun/rebuildError';
import { FORMAT_NAMES } from '../ingest/agents';
import { UsageError } from './args';
import { preferBaselineWasm } from './baselineWasm';
import { appendCommand } from './commands/append';
import { auditCommand } from './commands/audit';
import { compactCommand } from './commands/compact';
import { evalCommand } from './commands/eval';
import { contextCommand } from './commands/context';
import { handoffCommand } from './commands/handoff';
import { infoCommand } from './commands/info';
import { ingestCommand } from './commands/ingest';
import { logCommand } from './commands/log';
import { otlpCommand } from './commands/otlp';
import { searchCommand } from './commands/search';
import { searchAllCommand } from './commands/searchAll';
import { exportCommand, importCommand } from './commands/transfer';
import { viewCommand } from './commands/view';
import { verifyCommand } from './commands/verify';
import { diffCommand } from './commands/diff';
import { statsCommand } from './commands/stats';
import { blameCommand } from './commands/blame';
import { traceCommand } from './commands/trace';
import { discardCommand, forkCommand, mergeCommand } from './commands/fork';
import { repairCommand } from './commands/repair';
import { rerunCommand } from './commands/rerun';
import { restoreCommand } from './commands/restore';
import { runCommand } from './commands/run';
import { ioOf, OutputClosedError, processSink, type Io, type Sink } from './output';

const HELP_INDENT = 47;
const HELP_WIDTH = 47;

/** Words laid out in the help's right-hand column: every agent's format, read from the registry rather than listed twice. */
function column(text: string): string {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + 1 + word.length <= HELP_WIDTH) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  return lines.map((l) => ' '.repeat(HELP_INDENT) + l).join('\n');
}

const HELP = `agent-tape: inspect and convert Agent Tape files (*.tape.sqlite, *.tape.jsonl), and run the agent on them

usage: agent-tape <command> [options]

  import <src.tape.jsonl> <dst.tape.sqlite>    JSONL -> new SQLite tape (never overwrites)
  export <src.tape.sqlite> <dst.tape.jsonl>    SQLite -> new JSONL tape (never overwrites)
  info <tape> [--json]                         sessions, entry counts, heads, anchors, sizes:
                                               the snapshot's bytes and the journal's record
                                               bytes (journalBytes: intact records after its
                                               header, not its preallocated file size)
  log <tape> [--session S] [--kind K] [--name N] [--from ID] [--to ID] [--json]
                                               raw entries (--json: the JSONL entry format)
  view <tape> --session S [--pending] [--json] the folded effective view
  context <tape> --session S [--anchor last|none|NAME] [--json]
                                               the context a model request would get
  search <tape> <query> [--session S] [--kind K] [--limit N] [--json]
                                               ranked full-text search (FTS4 syntax)
  search-all <tape> <query...> [--agent A]... [--session S]
      [--since YYYY-MM-DD] [--until YYYY-MM-DD] [--limit N] [--json]
                                               what every session's conversation says, ranked
                                               as search ranks (Tape: Search All Sessions):
                                               messages as in force, tool calls and results,
                                               compaction summaries, handoff notes; every word
                                               must occur (plain text, word* a prefix, CJK
                                               found inside longer runs); each
                                               hit with its session's agent, title and date;
                                               --agent (again for more) by the format a session
                                               was ingested from, or agent-tape; days are UTC
                                               and included; --limit default 50 (--json:
                                               {hits, total})
  append <tape.sqlite> --session S [--durable] entries (JSON Lines, no entryId) from stdin;
                                               prints {"entryId":N,"deduplicated":B} per entry
                                               once it is in the journal (safe if the process
                                               dies; --durable: fsynced too, safe if the machine
                                               does); creates the tape if missing; stops at
                                               the first refused line, appending none after it
  handoff <tape.sqlite> --session S --name N --summary TEXT [--state JSON]
                                               appends a handoff/N anchor ({summary, state}) to
                                               an existing session: later contexts start from
                                               it; prints its entry id once fsynced
  run <tape.sqlite> --session S --base-url URL --model M [--api-key-env VAR]
      [--workspace DIR] [--max-rounds N] [--context-window N] [--allow-edits]
      [--allow-commands] [--pass-env NAME,...] [--no-checkpoints] [--json] [--] <prompt...>
                                               one agent turn in session S (created if new)
                                               against an OpenAI-compatible server; the answer
                                               on stdout, tool activity on stderr (--json: JSON
                                               Lines events); the API key is read from the
                                               variable --api-key-env names (OPENAI_API_KEY);
                                               edits and commands are refused unless allowed;
                                               commands see no *_TOKEN, *_SECRET, *_API_KEY,
                                               *PASSWORD variables nor the key's, except those
                                               --pass-env names; with edits or commands
                                               allowed, the workspace is checkpointed (in
                                               <tape>.checkpoints, a git repository of its own)
                                               before the turn's first such tool and at its end,
                                               unless --no-checkpoints; with
                                               OTEL_EXPORTER_OTLP_ENDPOINT set, the turn's
                                               spans go live to that collector (protocol,
                                               headers, timeout from OTEL_EXPORTER_OTLP_*);
                                               exit 0 answer, 1 provider failure or round
                                               limit, 130 interrupted (cancel is on the tape)
  compact <tape.sqlite> --session S --base-url URL --model M [--api-key-env VAR]
      [--context-window N] [--json]            summarises the context in force into a
                                               compaction/manual anchor; prints its entry id
  compact <tape.sqlite> --session S --pin ENTRY[,ENTRY...] | --undo |
      --summary-file F [--json]                amends the compaction in force by appending:
                                               pins entries into every later context after
                                               its summary, undoes it (contexts start from
                                               the anchor before it; says what does not fit),
                                               or replaces its summary with F's text; prints
                                               the entry appended; exit 2 with the reason when
                                               S has no compaction to amend
  audit <tape> --session S [--anchor ENTRY] [--json]
                                               what each compaction's summary keeps of the
                                               range it replaced: paths, commands, errors,
                                               requests and tools, each with its entry ids
                                               and whether the summary names it, totals per
                                               kind (--json: an array, or the one --anchor
                                               names); exit 2 when S has no compaction or
                                               ENTRY is not one
  ingest <source-or-dir>... <dst.tape.sqlite> [--from F] [--follow] [--json]
                                               other agents' sessions (a folder is searched)
                                               onto a tape, created if missing; F is one of
${column(FORMAT_NAMES.join(', '))}
                                               (else told from the path and content);
                                               subagents as linked sessions; prints
                                               sessions, entries appended and records skipped
                                               by type; again later appends only what is new;
                                               --follow keeps ingesting as the agents write,
                                               until Ctrl+C
  fork <tape.sqlite> --session S [--at ID] [--id F]
                                               starts session S::fork::F (F generated when
                                               omitted) reading S through up to entry ID (its
                                               head); refused inside an open turn
  merge <tape.sqlite> --fork S::fork::F        appends the fork's entries to its parent, then a
                                               receipt; again returns the first receipt
  discard <tape.sqlite> --fork S::fork::F [--reason TEXT]
                                               a receipt that closes the fork for good
                                               (fork, merge, discard print the receipt as JSON;
                                               a refused operation exits 2 with the reason)
  diff <tape> A B [--json]                     sessions A and B side by side: how many leading
                                               entries they share (a fork and its parent: the
                                               fork point), then their turns after that aligned,
                                               each with its messages, tool calls and results,
                                               requests, tokens and checkpointed file changes,
                                               and totals (--json: one object); exit 2 unknown
                                               session
  stats <tape> [--json]                        model requests and tokens (input, cached,
                                               output) per agent and per UTC day over every
                                               session, then per agent in all (--json:
                                               {rows, totals})
  blame <tape> <file> [--workspace DIR] [--lines A-B] [--json]
                                               which session, turn and prompt of the tape last
                                               wrote each line of the file as it is now (every
                                               agent's edit calls, our agent's checkpoints; an
                                               ingested session's paths read from the folder it
                                               ran in); DIR defaults to the current directory;
                                               --json: [{startLine, endLine, origin: null |
                                               {sessionId, entryId, agent, model, turn, prompt,
                                               at}}] covering every line (of A-B) in order;
                                               exit 2 for a file outside DIR, missing, not a
                                               regular file or over 4 MiB, or bad --lines
  trace <tape> [--session S]... [--workspace DIR] [--out FILE]
                                               Agent Trace records (RFC 0.1.0), one JSON line
                                               per session, of the lines its edits wrote in
                                               DIR's files as they are now: url
                                               agent-tape:<tape>#<session>/<entry>, the model,
                                               sha256 content hashes, the git commit of DIR;
                                               to a new FILE or stdout
  otlp <tape> [--session S]... [--since YYYY-MM-DD] [--content]
       [--cache-tokens cache_write|cache_creation] [--out FILE | --endpoint URL]
                                               the sessions as OpenTelemetry GenAI spans, one
                                               OTLP/JSON request ({"resourceSpans":[...]}):
                                               invoke_agent per turn, chat per model request,
                                               execute_tool per tool call, subagents under
                                               their call, forks and merges as links; ids
                                               derived from the tape, so an export again
                                               gives the same ids; --since: turns from that
                                               UTC day on; messages, system prompt and tool
                                               arguments and results only with --content
                                               (secret variables' values and key-shaped text
                                               masked even then); --cache-tokens
                                               cache_creation: the older name of the cache-write
                                               count, for a backend that reads that; to a new
                                               FILE or stdout, or sent to the OTLP/HTTP
                                               collector at URL (protocol, headers, timeout
                                               from OTEL_EXPORTER_OTLP_*; exit 1 when it
                                               refuses)
  verify <tape> [--session S] [--json]         verification replay: rebuilds every recorded
                                               model request from the tape with the policy and
                                               builder its manifest names and compares it (match,
                                               mismatch with the first differing item, cannot
                                               rebuild); checks dense ids, unique provenance
                                               keys and manifest hashes; exit 0 all match, 1 not
  eval <tape.sqlite> --session S --base-url URL --model M [--api-key-env VAR]
      [--requests A-B] [--max-requests N] [--concurrency N] [--text-threshold X]
      [--system-prompt FILE] [--no-record] [--json]
                                               every recorded request of S (or the A-th to
                                               the B-th) sent again on its recorded context
                                               and judged against the recorded answer: agree
                                               (same tool names and canonical arguments, or
                                               text at least X alike, default 0.5), diverged,
                                               failed; a table and a summary (--json: one
                                               object), recorded as session S::eval::ID unless
                                               --no-record; exit 0 it ran, 1 the model failed
                                               (no answer, or a refusal every request meets),
                                               2 bad input (nothing written), 130 interrupted
  rerun <tape.sqlite> --session S --request ENTRY --base-url URL --model M
      [--api-key-env VAR] [--system-prompt FILE] [--drop ENTRY]... [--fork-id F]
      [--continue [--max-rounds N] [--live [--allow-edits] [--allow-commands]
      [--workspace DIR] [--pass-env NAME,...]]] [--json]
                                               request ENTRY (a view/assembled entry) of S
                                               sent again, with another system prompt (the
                                               file's text) or context items left out, and
                                               recorded in a fork of S made just before it
                                               (S is never written to); prints the fork, whether
                                               the prompt hash is the recorded one, the answer
                                               and its tool calls (not run); --continue goes on
                                               in the fork, answering each call identical to the
                                               recorded one from the tape and stopping at the
                                               first that differs (diverged), or, with --live,
                                               running it and the rest for real as run does;
                                               --json: one object (forkSessionId,
                                               promptHashMatches, text, toolCalls, outcome, ...);
                                               exit 0 it ran, 1 the model failed (recorded in
                                               the fork), 2 bad input (nothing written), 130
                                               interrupted
  restore <tape.sqlite> --session S --at ENTRY [--workspace DIR] [--dry-run] [--json]
                                               the files of the folder the checkpoint at or
                                               before entry ENTRY of S was taken of (DIR may
                                               only name that folder; the current directory
                                               for a checkpoint that does not say) back to it,
                                               from <tape>.checkpoints: prints the folder and
                                               the files changed, created and removed, then
                                               changes them all or none (--dry-run: only
                                               prints); the state before is checkpointed
                                               first, so a restore can be undone; files outside
                                               the checkpoints (ignored, too large) and the
                                               workspace's own .git are never touched; exit 2
                                               when S has no checkpoint there, it is another
                                               folder's or a file changed meanwhile, 1 when
                                               writing failed (the files are put back)
  repair <tape.sqlite> [--json]                a journal damaged in the middle (which open
                                               refuses): keeps its intact records before the
                                               damage, moves the rest to
                                               <tape>.tapelog.damaged-<time>; changes nothing
                                               when there is no such damage

human output has terminal control characters removed from tape text; --json output is exact

exit status: 0 ok, 1 check failed or internal error (run: the provider or the round limit
ended the turn), 2 usage error or bad input, 130 interrupted by Ctrl+C (run, rerun, compact, eval,
ingest --follow)
`;

// A Map, not an object literal: the name is the user's, and `constructor` or `__proto__` must be
// an unknown command, not something every object inherits.
const COMMANDS = new Map<string, (args: string[], io: Io) => Promise<number>>([
  ['import', importCommand],
  ['export', exportCommand],
  ['info', infoCommand],
  ['log', logCommand],
  ['view', viewCommand],
  ['context', contextCommand],
  ['search', searchCommand],
  ['search-all', searchAllCommand],
  ['append', appendCommand],
  ['repair', repairCommand],
  ['handoff', handoffCommand],
  ['run', runCommand],
  ['rerun', rerunCommand],
  ['compact', compactCommand],
  ['audit', auditCommand],
  ['eval', evalCommand],
  ['ingest', ingestCommand],
  ['verify', verifyCommand],
  ['fork', forkCommand],
  ['merge', mergeCommand],
  ['discard', discardCommand],
  ['restore', restoreCommand],
  ['diff', diffCommand],
  ['stats', statsCommand],
  ['blame', blameCommand],
  ['trace', traceCommand],
  ['otlp', otlpCommand],
]);

const BAD_INPUT = [
  NoCheckpointError,
  CheckpointMissingError,
  WrongWorkspaceError,
  StalePlanError,
  ForkRefusedError,
  RebuildError,
  UsageError,
  TapeFileError,
  TapeLockedError,
  TapeQueryError,
  TapeValidationError,
  ContextSelectionError,
  CompactionAuditError,
];

export async function run(argv: string[], sink: Sink = processSink): Promise<number> {
  const io = ioOf(sink);
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help' || args.includes('--help')) {
    io.out(HELP);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS.get(name);
  try {
    if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)}`);
    return await command(args, io);
  } catch (e) {
    // The reader of our output has gone: nothing to tell it, and exit 1 says the output is cut short.
    if (e instanceof OutputClosedError) return 1;
    const bad = BAD_INPUT.some((c) => e instanceof c);
    io.err(`agent-tape: ${errorMessage(e)}\n${e instanceof UsageError ? "run 'agent-tape --help' for usage\n" : ''}`);
    return bad ? 2 : 1;
  }
}

if (require.main === module) {
  preferBaselineWasm();
  run(process.argv.slice(2)).then((code) => (process.exitCode = code));
}
