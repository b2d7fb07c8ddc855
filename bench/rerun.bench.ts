// Re-running every request of a session (issue 18: <= 2 ms of our own time per request beyond the
// model's). The session is the verify benchmark's (1,000 requests, auto-compactions among them);
// `evaluateSession` rebuilds each request, sends it through the OpenAI-compatible client to a
// scripted server on 127.0.0.1 in this process that answers at once with the recorded answer,
// judges it and records the result on the tape. The model's time is what the client's stream
// took (the HTTP round trip, the server's answer, the client's parsing); our own time is the rest:
// rebuilding, judging, recording, sendRequest's bookkeeping.
// Then each turn's first request is re-run and continued through the turn loop, every call
// answered from the recording: the port answers in-process with the recorded answers, so the time
// is all our own (forking, assembling each later request from the fork, streaming onto the tape,
// replaying results).
import * as fs from 'fs';
import type { ModelEvent, ModelPort, ModelRequest } from '../src/agent/model/modelPort';
import { TokenEstimator } from '../src/agent/model/tokenEstimator';
import { OpenAiCompatibleModel } from '../src/agent/model/openAiCompatible';
import { evaluateSession } from '../src/rerun/evaluate';
import { RecordedRequests } from '../src/rerun/rebuildRequest';
import { RecordedResponses } from '../src/rerun/recordedResponse';
import { rerunRequest } from '../src/rerun/rerun';
import { manifestOfEntry } from '../src/tape/manifest';
import { startFakeOpenAiServer, type FakeChunk, type FakeReply } from '../test/support/fakeOpenAiServer';
import { round, targets, tempDir, time } from './common';
import { recordVerifySession, REQUESTS_PER_TURN, SESSION } from './verifySession';

const TARGET_MS_PER_REQUEST = 2;

/** The port, timing how long its stream holds the evaluation up: the model's share of the time. */
function timed(port: ModelPort): ModelPort & { waitedMs: number } {
  const out = {
    info: port.info,
    countTokens: (input: Parameters<ModelPort['countTokens']>[0]) => port.countTokens(input),
    waitedMs: 0,
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
      const it = port.stream(request, signal)[Symbol.asyncIterator]();
      for (;;) {
        const t0 = performance.now();
        const next = await it.next();
        out.waitedMs += performance.now() - t0;
        if (next.done === true) return;
        yield next.value;
      }
    },
  };
  return out;
}

async function main(): Promise<void> {
  const dir = tempDir();
  const { store, tape } = await recordVerifySession(dir);
  const requests = new RecordedRequests(tape, SESSION);
  const ids = requests.requestIds();
  const responses = new RecordedResponses(requests.replay);
  // The server answers each request, in order, with the answer recorded after it.
  const replies: FakeReply[] = ids.map((id) => {
    const { turnId, requestSeq } = manifestOfEntry(tape.reader.requireEntry(SESSION, id));
    const { facts, text } = responses.of(id, turnId, requestSeq);
    const calls: FakeChunk[] = facts.toolCalls.map((c, index) => ({
      toolCall: { index, id: `c${index}`, name: c.name, arguments: JSON.stringify(c.arguments) },
    }));
    return { stream: [{ text }, ...calls], usage: { prompt_tokens: 1_000, completion_tokens: 50 } };
  });
  const server = await startFakeOpenAiServer(replies, 600_000);
  const model = timed(
    new OpenAiCompatibleModel({ baseURL: server.baseURL, apiKey: '', model: 'bench', vendor: 'bench', contextWindow: 32_000, maxOutput: 4_000 }),
  );
  const rebuildMs = time(() => ids.forEach((id) => requests.rebuild(id)));

  const t0 = performance.now();
  const report = await evaluateSession(tape, SESSION, model, { evalId: 'bench' });
  const totalMs = performance.now() - t0;
  await server.close();
  const s = report.summary;
  if (s.requests !== ids.length || s.agree !== ids.length)
    throw new Error(`not every request agrees: ${JSON.stringify(report.requests.find((r) => r.status !== 'agree'))}`);
  const ownMs = totalMs - model.waitedMs;
  const perRequest = ownMs / ids.length;
  const recorded = store.headEntryId(report.evalSessionId!);

  // Each turn's requests answered in order by the recorded answers, so every call is the recorded one.
  const answers: ModelEvent[][] = ids.map((id) => {
    const { turnId, requestSeq } = manifestOfEntry(tape.reader.requireEntry(SESSION, id));
    const { facts, text } = responses.of(id, turnId, requestSeq);
    const calls = facts.toolCalls.map((c, i): ModelEvent => ({
      type: 'tool_call',
      call: { id: `c${i}`, name: c.name, valid: true, arguments: c.arguments as Record<string, unknown>, rawArguments: JSON.stringify(c.arguments) },
    }));
    return [{ type: 'text', delta: text }, ...calls, { type: 'stop', reason: calls.length > 0 ? 'tool_calls' : 'stop' }];
  });
  const estimator = new TokenEstimator();
  let next = 0;
  const recordedModel: ModelPort = {
    info: { id: 'bench', vendor: 'bench', contextWindow: 32_000, maxOutput: 4_000 },
    countTokens: (input) => estimator.count(input),
    async *stream(): AsyncGenerator<ModelEvent> {
      yield* answers[next++];
    },
  };
  const firsts = ids.map((id, i) => ({ id, i })).filter(({ i }) => i % REQUESTS_PER_TURN === 0);
  let continuedRequests = 0;
  const t1 = performance.now();
  for (const { id, i } of firsts) {
    next = i;
    const r = await rerunRequest(tape, recordedModel, { sessionId: SESSION, entryId: id }, { signal: new AbortController().signal, continue: {} });
    if (r.outcome !== 'answer' || r.divergence !== null) throw new Error(`the re-run of #${id} did not replay its turn: ${r.outcome}`);
    continuedRequests += r.steps.length;
  }
  const continuedMs = performance.now() - t1;
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });

  console.log(
    JSON.stringify({
      requests: ids.length,
      agree: s.agree,
      evalEntries: recorded,
      note: "totalMs: evaluateSession of every request, recorded on the (in-memory) tape; modelMs: time spent waiting on the OpenAI-compatible client's stream (HTTP to a scripted server on 127.0.0.1 in this process that answers at once); ownMs = totalMs - modelMs; rebuildMs: the 1,000 rebuilds alone (what verification does per request: the context rebuilt, its prompt and manifest hashed), so ownBeyondRebuildPerRequest is what sending, judging and recording add; continuedRerun: each turn's first request re-run and continued to the turn's answer through the turn loop, every call replayed from the recording, the model in-process answering with the recorded answers",
      ms: {
        total: round(totalMs),
        model: round(model.waitedMs),
        own: round(ownMs),
        rebuild: round(rebuildMs),
        ownPerRequest: round(perRequest),
        rebuildPerRequest: round(rebuildMs / ids.length),
        ownBeyondRebuildPerRequest: round((ownMs - rebuildMs) / ids.length),
        target: TARGET_MS_PER_REQUEST,
        continuedRerun: round(continuedMs),
        continuedRerunPerRequest: round(continuedMs / continuedRequests),
      },
      continuedRerun: { reruns: firsts.length, requests: continuedRequests },
      ratios: { ownPerRequestVsTarget: round(perRequest / TARGET_MS_PER_REQUEST) },
      targets: targets({ 'our own time per re-run request <= 2 ms': perRequest <= TARGET_MS_PER_REQUEST }),
    }),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
