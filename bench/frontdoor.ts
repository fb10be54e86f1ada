/**
 * Front-door overhead: `sy.complete` / `sy.stream` (request validation, resolution, pre-dispatch
 * checks, availability, pricing, decision record, reply helpers) against calling the same in-memory
 * adapter directly (which validates the request at its boundary, as every built-in adapter does).
 * No network: the adapter answers at once, so the difference is what routing and pricing add.
 * Run: `node bench/frontdoor.ts` (or `npm run bench:frontdoor`); prints µs per call.
 */
import type { Adapter } from '../src/core/adapter.ts';
import { EventStream } from '../src/core/event-stream.ts';
import type { StreamEvent } from '../src/core/events.ts';
import { createRequestId } from '../src/core/ids.ts';
import { silentLogger } from '../src/core/logger.ts';
import type { CanonicalRequest, CanonicalResponse } from '../src/core/request.ts';
import { userText } from '../src/core/transcript.ts';
import { validateRequest, validateRouteRequest } from '../src/core/request-schema.ts';
import { validateCall } from '../src/providers/common/validate-call.ts';
import { allCapabilities } from '../src/testing/scripted-adapter.ts';
import { createProviderTypeTable, registerProviderType } from '../src/adapter-kit.ts';
import { createSwitchyard } from '../src/index.ts';

const calls = Number(process.env.CALLS ?? 50_000);
const rounds = 5;

function response(request: CanonicalRequest): CanonicalResponse {
  return {
    requestId: request.requestId!,
    model: request.model,
    provider: 'openai',
    content: [{ type: 'text', text: 'Hello there, how can I help?' }],
    finishReason: 'completed',
    usage: { input: 120, cacheRead: 0, cacheWrite: 0, output: 12, reasoning: 0 },
    latencyMs: 0,
  };
}

/**
 * An adapter that answers at once: complete() with a response, stream() with six events. Like every
 * built-in adapter (`createHttpAdapter`), it validates the request at its boundary (`validateCall`),
 * which takes a request the front door already validated as it is.
 */
const adapter: Adapter = {
  name: 'openai',
  protocol: 'openai-chat',
  capabilities: () => allCapabilities,
  complete: async (request, options) => response(validateCall('openai', request, options).request),
  stream(request, options) {
    const stream = new EventStream<StreamEvent, CanonicalResponse>();
    const reply = response(validateCall('openai', request, options).request);
    queueMicrotask(() => {
      stream.push({
        type: 'message-start',
        requestId: reply.requestId,
        model: reply.model,
        provider: 'openai',
      });
      stream.push({ type: 'text-start', index: 0 });
      stream.push({ type: 'text-delta', index: 0, delta: 'Hello there, how can I help?' });
      stream.push({ type: 'text-end', index: 0 });
      stream.push({ type: 'usage', usage: reply.usage });
      stream.push({ type: 'finish', response: reply });
      stream.end(reply);
    });
    return stream;
  },
  estimateInputTokens: () => 10,
  cancel: () => false,
  close: async () => {},
  listModels: async () => [],
  startSession: () => ({ id: 'bench' as never, toolIds: undefined as never, state: new Map() }),
  endSession: async () => {},
};

const providerTypes = createProviderTypeTable();
registerProviderType(
  { type: 'bench', keyVariables: () => [], keyRequired: () => false, create: () => adapter },
  providerTypes,
);
const sy = createSwitchyard({
  providerTypes,
  logger: silentLogger,
  config: {
    builtins: false,
    adapters: { openai: { type: 'bench' } },
    models: { 'openai:gpt-4.1-mini': { aliases: ['mini'], fallbacks: ['openai:gpt-4o'] } },
  },
});
const transcript = [userText('Hello')];
// A fixed request id on both sides: minting a ULID costs the same on either path and would only add noise.
const requestId = createRequestId();
const direct = { requestId, model: 'openai:gpt-4.1-mini', transcript, maxOutputTokens: 1024 };
const routed = { requestId, model: 'mini', transcript, maxOutputTokens: 1024 };

async function drain(stream: AsyncIterable<StreamEvent>): Promise<void> {
  for await (const _event of stream);
}

async function time(label: string, call: () => Promise<unknown>): Promise<number> {
  for (let index = 0; index < 2000; index++) await call();
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    for (let index = 0; index < calls; index++) await call();
    samples.push(((performance.now() - start) * 1000) / calls);
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)]!;
  console.log(
    `${label.padEnd(34)} ${median.toFixed(2).padStart(7)} µs/call (median of ${rounds} × ${calls})`,
  );
  return median;
}

const completeDirect = await time('adapter.complete (direct)', () => adapter.complete(direct));
const completeRouted = await time('sy.complete (routed + priced)', () => sy.complete(routed));
const streamDirect = await time('adapter.stream, iterated (direct)', () => drain(adapter.stream(direct)));
const streamRouted = await time('sy.stream, iterated (routed + priced)', () => drain(sy.stream(routed)));
console.log(`overhead complete: ${(completeRouted - completeDirect).toFixed(2)} µs/call`);
console.log(`overhead stream:   ${(streamRouted - streamDirect).toFixed(2)} µs/call`);
// What of the overhead is request validation (done once per routed call: at the front door).
await time('validateRouteRequest (front door)', async () => validateRouteRequest({ ...routed }));
await time('validateRequest (adapter boundary)', async () => validateRequest({ ...direct }));
const priced = await sy.complete(routed);
console.log(`(each routed reply priced: ${JSON.stringify(priced.usage.cost)})`);
