import { VIEW_ASSEMBLED, SYSTEM_TOOLS } from '../tape/entryNames';
import * as z from 'zod';
import type { ReadableTape } from '../store/lineage';
import type { RequestFacts } from '../tape/contextAssembly';
import type { Entry } from '../tape/entry';
import { errorMessage } from '../tape/errorMessage';
import { mergedFromOf } from '../tape/fork';
import { hashManifest, keepsItsHash, manifestOfEntry, PARAMS_SINCE_VERSION, toolsHashOf, type IncludedItem, type ViewManifest } from '../tape/manifest';
import type { ModelRequest, ToolDefinition } from '../tape/modelRequest';
import { CHARS_PER_TOKEN } from '../tape/projections/contextPressure';
import { samplingOf, type RequestParams, type SamplingOptions } from '../tape/requestParams';
import { toolsOfEntry } from '../tape/toolsEntry';
import { PrefixReplay } from './prefixReplay';
import { REBUILDERS, rebuilderFor, recordedFacts, recordedTokens, type Rebuilder } from './rebuilder';
import { RebuildError } from './rebuildError';
import { variationSchema, type Variation } from './variation';
import { editedEntries, omittedRows } from './variedPrefix';
import { firstDifference, type Difference } from './verify';

/**
 * Rebuilding a recorded request so it can be sent again (re-run, evaluation): request k of a
 * session, from the tape prefix its manifest names, by the builder verification uses, with the
 * tool definitions and request parameters it was sent with, and optionally varied. Nothing is
 * written and nothing is sent: the caller sends `request` through a model port and records what
 * it wants. A rebuild without a variation is the recorded request: its promptHash is the recorded
 * one (reported, never assumed).
 */

export interface RebuildOptions {
  /** The builders a request may be rebuilt with; the current one by default. */
  rebuilders?: readonly Rebuilder[];
  /**
   * How what the recording did not count is counted (text a variation changed, added tools, entries
   * a new budget may let in): the target model's counter, or about four characters a token.
   */
  countTokens?: RequestFacts['countTokens'];
}

export interface RebuiltRequest {
  sessionId: string;
  /** The `view/assembled` entry rebuilt (a position of the session's view). */
  entryId: number;
  /** Its manifest as recorded. */
  recorded: ViewManifest;
  /** The variation applied, as parsed (`{}` for none). */
  variation: Variation;
  /** What to send: messages, tool definitions, output cap and sampling options. */
  request: ModelRequest;
  /** The manifest of `request` (the current schema version), sealed; same identity (view, turn, request) as the recorded one. */
  manifest: ViewManifest;
  promptHashMatches: boolean;
  toolsHashMatches: boolean;
  /** The first way `manifest` differs from `recorded`, as verification words it; null for the same request. */
  difference: Difference | null;
  /** What the rebuild had to assume, in words (a version 1 manifest's parameters). */
  notes: string[];
}

const EMPTY_TOOLS_HASH = toolsHashOf([]);

const estimate: RequestFacts['countTokens'] = (input) =>
  Math.ceil((typeof input === 'string' ? input.length : input.reduce((n, m) => n + m.content.length + (m.toolName?.length ?? 0), 0)) / CHARS_PER_TOKEN);

/**
 * The recorded requests of one session, rebuilt one after another over one read of its fold rows
 * (an evaluation rebuilds them all; each rebuild folds only the rows since the previous one).
 * Entry ids are positions of the session's view through the host's lineage reader.
 */
export class RecordedRequests {
  /** The session's fold rows and entries, each entry read once: `RecordedResponses` reads its answers through it too. */
  readonly replay: PrefixReplay;
  private readonly rebuilders: readonly Rebuilder[];
  private readonly count: RequestFacts['countTokens'];
  /** The session's tool sets, read once, and each set checked once: querying and hashing them for every request cost more than the rest of a rebuild. */
  private toolSets: Entry[] | undefined;
  private readonly checkedTools = new Map<number, ToolDefinition[]>();

  constructor(
    private readonly tape: ReadableTape,
    readonly sessionId: string,
    options: RebuildOptions = {},
  ) {
    if (tape.reader.headEntryId(sessionId) === 0) throw new RebuildError('unknown_session', `the tape has no session ${JSON.stringify(sessionId)}`);
    this.replay = new PrefixReplay(tape.reader, sessionId);
    this.rebuilders = options.rebuilders ?? REBUILDERS;
    this.count = options.countTokens ?? estimate;
  }

  /** The entry ids of the session's own recorded requests, in tape order; merged copies are left out (rebuilt in their fork). */
  requestIds(): number[] {
    const { reader } = this.tape;
    const { replay, sessionId } = this;
    return replay.rows
      .filter(
        (r) =>
          r.kind === 'event' &&
          r.name === VIEW_ASSEMBLED &&
          reader.origin(sessionId, r.entryId).sessionId === sessionId &&
          mergedFromOf(replay.getEntry(r.entryId)) === null,
      )
      .map((r) => r.entryId);
  }

  /** Request `entryId` rebuilt, varied by `variation` (parsed here too; `{}` for none). Throws a `RebuildError`. */
  rebuild(entryId: number, variation: Variation = {}): RebuiltRequest {
    const parsed = variationSchema.safeParse(variation);
    if (!parsed.success) throw new RebuildError('invalid_variation', `invalid variation: ${z.prettifyError(parsed.error)}`);
    const recorded = this.recordedManifest(entryId);
    let rebuilt: RebuiltRequest;
    try {
      rebuilt = this.rebuildRecorded(entryId, recorded, parsed.data);
    } catch (e) {
      // An altered manifest is reported as altered, whatever the rebuild made of it.
      this.checkHash(entryId, recorded);
      throw e;
    }
    this.checkHash(entryId, recorded, rebuilt.manifest);
    return rebuilt;
  }

  private rebuildRecorded(entryId: number, recorded: ViewManifest, v: Variation): RebuiltRequest {
    const { sessionId, replay } = this;
    const notes: string[] = [];
    const params = recordedParams(recorded, notes);
    const tools = varyTools(this.recordedTools(entryId, recorded), v);
    const byEntry = new Map<number, IncludedItem>(recorded.included.flatMap((i) => (i.entryId === null ? [] : [[i.entryId, i] as const])));
    const omit = omittedRows(replay.rows, recorded.latestEntryId, v.drop ?? [], byEntry);
    const folds = replay.at(recorded.latestEntryId, omit).folds;

    const edits = new Map<number, string>();
    for (const { entryId: id, content } of v.edit ?? []) {
      if (!byEntry.has(id)) throw new RebuildError('invalid_variation', `cannot edit entry #${id}: it is not in request #${entryId}'s context`);
      if (omit.has(id)) throw new RebuildError('invalid_variation', `entry #${id} is both dropped and edited`);
      edits.set(id, content);
    }
    if (v.systemPrompt !== undefined) {
      const prompt = folds.view(sessionId, { includePending: false }).systemPromptEntryId;
      if (prompt === null)
        throw new RebuildError(
          'invalid_variation',
          `request #${entryId} was sent without a system prompt (or the variation drops it): there is none to replace`,
        );
      if (edits.has(prompt)) throw new RebuildError('invalid_variation', `the system prompt (entry #${prompt}) is both replaced and edited`);
      edits.set(prompt, v.systemPrompt);
    }

    const choice = v.policy === undefined ? rebuilderFor(this.rebuilders, recorded.policy, recorded.builderVersion) : rebuilderFor(this.rebuilders, v.policy);
    if (!('rebuilder' in choice)) throw new RebuildError('cannot_rebuild', `cannot rebuild request #${entryId}: ${choice.reason}`);

    const facts = recordedFacts(recorded, sessionId, editedEntries(replay.getEntry, edits));
    const model = {
      vendor: v.model?.vendor ?? facts.model.vendor,
      id: v.model?.id ?? facts.model.id,
      contextWindow: v.budget?.contextWindow ?? facts.model.contextWindow,
      maxOutput: v.budget?.maxOutput ?? facts.model.maxOutput,
    };
    const toolsChanged = toolsHashOf(tools) !== recorded.hashes.toolsHash;
    const { request, manifest } = choice.rebuilder.rebuild(folds, {
      ...facts,
      model,
      tools,
      sampling: varySampling(samplingOf(params), v.params),
      countTokens: recordedTokens(recorded, {
        changedEntries: new Set(edits.keys()),
        toolsChanged,
        refit: v.budget !== undefined || v.policy !== undefined,
        count: this.count,
      }),
    });
    return {
      sessionId,
      entryId,
      recorded,
      variation: v,
      request,
      manifest,
      promptHashMatches: manifest.hashes.promptHash === recorded.hashes.promptHash,
      toolsHashMatches: manifest.hashes.toolsHash === recorded.hashes.toolsHash,
      difference: firstDifference(recorded, manifest),
      notes,
    };
  }

  /** The tool set the manifest's toolsHash names: the last `system/tools` entry with that hash before the request. */
  private recordedTools(entryId: number, m: ViewManifest): ToolDefinition[] {
    const hash = m.hashes.toolsHash;
    // No tools need no entry: an empty set is known by its hash.
    if (hash === EMPTY_TOOLS_HASH) return [];
    const find = (): Entry | undefined => {
      this.toolSets ??= this.tape.reader.entries(this.sessionId, { kind: 'system', name: SYSTEM_TOOLS });
      const sets = this.toolSets;
      for (let i = sets.length - 1; i >= 0; i--) if (sets[i].entryId <= entryId && sets[i].payload.hash === hash) return sets[i];
      return undefined;
    };
    let entry = find();
    if (entry === undefined) {
      // A set appended since the sets were read.
      this.toolSets = undefined;
      entry = find();
    }
    if (entry === undefined) {
      throw new RebuildError(
        'tools_not_recorded',
        `request #${entryId} (${m.turnId}/${m.requestSeq}) cannot be sent again: its tool definitions (toolsHash ${hash.slice(0, 12)}…) are not on the tape; ` +
          `it was recorded before tool sets were (a ${SYSTEM_TOOLS} entry per set); verification still checks it`,
      );
    }
    let tools = this.checkedTools.get(entry.entryId);
    if (tools === undefined) {
      try {
        tools = toolsOfEntry(entry).tools;
      } catch (e) {
        throw new RebuildError('invalid_record', errorMessage(e));
      }
      this.checkedTools.set(entry.entryId, tools);
    }
    return tools;
  }

  private recordedManifest(entryId: number): ViewManifest {
    const { sessionId } = this;
    const entry = this.replay.findEntry(entryId);
    if (entry === undefined)
      throw new RebuildError('not_a_request', `session ${sessionId} has no entry #${entryId} (its head is #${this.tape.reader.headEntryId(sessionId)})`);
    if (entry.kind !== 'event' || entry.name !== VIEW_ASSEMBLED)
      throw new RebuildError('not_a_request', `entry #${entryId} of session ${sessionId} is ${entry.kind} ${entry.name}, not a ${VIEW_ASSEMBLED} request`);
    const merged = mergedFromOf(entry);
    if (merged !== null)
      throw new RebuildError(
        'not_a_request',
        `entry #${entryId} was merged from ${merged.sessionId} #${merged.entryId}: rebuild it in the session it was recorded in`,
      );
    let manifest: ViewManifest;
    try {
      manifest = manifestOfEntry(entry);
    } catch (e) {
      throw new RebuildError('invalid_record', errorMessage(e));
    }
    if (manifest.latestEntryId >= entryId)
      throw new RebuildError(
        'invalid_record',
        `the manifest of entry #${entryId} says it was built from entries up to #${manifest.latestEntryId}, at or after its own entry`,
      );
    return manifest;
  }

  /** Parsed against the schema already: what is left of verifyManifest is the hash, which a faithful rebuild proves (keepsItsHash). */
  private checkHash(entryId: number, recorded: ViewManifest, rebuilt?: ViewManifest): void {
    if (keepsItsHash(recorded, rebuilt)) return;
    throw new RebuildError(
      'invalid_record',
      `the manifest of entry #${entryId} was altered (manifestHash mismatch: recorded ${recorded.hashes.manifestHash}, computed ${hashManifest(recorded)})`,
    );
  }
}

/** Request `entryId` of `sessionId` rebuilt once (see `RecordedRequests`, which also rebuilds many). */
export function rebuildRequest(
  tape: ReadableTape,
  sessionId: string,
  entryId: number,
  variation: Variation = {},
  options: RebuildOptions = {},
): RebuiltRequest {
  return new RecordedRequests(tape, sessionId, options).rebuild(entryId, variation);
}

/** A version 1 manifest holds no parameters: it was sent with its budget's output cap and nothing else. */
function recordedParams(m: ViewManifest, notes: string[]): RequestParams {
  if (m.params !== undefined) return m.params;
  notes.push(
    `recorded with manifest schema version ${m.schemaVersion}, which holds no request parameters (version ${PARAMS_SINCE_VERSION} on): ` +
      `rebuilt with its token budget's output cap (${m.tokenBudget.maxOutput}) and the server's defaults for the rest, as it was sent`,
  );
  return { maxOutput: m.tokenBudget.maxOutput };
}

function varyTools(recorded: ToolDefinition[], v: Variation): ToolDefinition[] {
  // The recorded array itself when unvaried: its hash is kept per array (toolsHashOf).
  if (!v.tools?.remove?.length && !v.tools?.add?.length) return recorded;
  const remove = new Set(v.tools?.remove ?? []);
  const unknown = [...remove].filter((name) => !recorded.some((t) => t.name === name));
  if (unknown.length > 0)
    throw new RebuildError(
      'invalid_variation',
      `cannot remove ${unknown.join(', ')}: not among the request's tools (${recorded.map((t) => t.name).join(', ') || 'none'})`,
    );
  const kept = recorded.filter((t) => !remove.has(t.name));
  for (const t of v.tools?.add ?? []) {
    if (kept.some((k) => k.name === t.name))
      throw new RebuildError('invalid_variation', `cannot add ${t.name}: the request offers a tool of that name (remove it to replace it)`);
    kept.push(t);
  }
  return kept;
}

function varySampling(recorded: SamplingOptions, v: Variation['params']): SamplingOptions {
  const out: Record<string, unknown> = { ...recorded };
  for (const [key, value] of Object.entries(v ?? {})) {
    if (value === null) delete out[key];
    else if (value !== undefined) out[key] = value;
  }
  return out as SamplingOptions;
}
