/**
 * One dormant streamed call's objects, kept for the adapter's lifetime so that a major GC between
 * calls leaves the adapter's optimized code in place.
 *
 * Why: V8 optimizes a hot function in two tiers. The first (Maglev) embeds in its code the hidden
 * classes ("maps") of the objects the function handles, weakly, and, unlike the top tier
 * (Turbofan), does not keep them alive. A class instance's hidden class is reachable only through
 * its instances (the class keeps only its first, empty one), so a major GC that finds no call in
 * flight frees the hidden classes of every per-call object (the `EventStream`, the `StreamBuilder`,
 * the call's context, the parser's reader, the response, its `AbortController`s …) and every
 * Maglev function that embedded one is deoptimized ("embedded weak objects cleared" in
 * `--trace-deopt`). A function that runs once per call then needs some 500 calls to be optimized
 * again, so after each major GC hundreds of calls ran unoptimized (`bench/fixed-cost-deopts.ts`
 * counts it; bench/README "Per-call fixed cost").
 *
 * One instance of each, made by the same constructors as a real call's, keeps those hidden
 * classes alive. It holds no timer, no socket, no listener on anything outside itself and no
 * user data, and is made once per adapter (about 6 KB, measured for the OpenAI adapter).
 */
import type { StreamEvent } from '../../core/events.ts';
import type { CanonicalResponse } from '../../core/request.ts';
import { EventStream } from '../../core/event-stream.ts';
import { createRequestId } from '../../core/ids.ts';
import { userText } from '../../core/transcript.ts';
import { StreamBuilder } from '../../core/stream-builder.ts';
import { LightBody, LightResponse } from '../../transport/light-response.ts';
import { SseDecoder } from '../../transport/sse.ts';
import { CallContext, createHttpCall } from './call-setup.ts';
import { linkedController } from './http-exchange.ts';
import type { ProviderDefinition } from './definition.ts';
import type { HttpRuntime } from './http-runtime.ts';
import { validateCall } from './validate-call.ts';

/** The model name of the dormant call (never sent anywhere). */
const dormantModel = 'dormant';

function ignore(): void {}

/**
 * Builds the dormant call of `runtime`'s adapter: what `stream-call.ts` and the transport make per
 * call, left unused. A piece that cannot be made (e.g. a parser that needs a prepared call) is left
 * out: the objects are an optimization, never a reason for an adapter to fail.
 */
export function createDormantCall(runtime: HttpRuntime): readonly object[] {
  const { definition, http } = runtime;
  try {
    const requestId = createRequestId();
    const controller = new AbortController();
    const attemptController = linkedController(controller.signal);
    const stream = new EventStream<StreamEvent, CanonicalResponse>(ignore);
    const call = createHttpCall(runtime.baseURL, definition.name, requestId);
    const context = new CallContext(
      runtime,
      requestId,
      call,
      dormantModel,
      runtime.capabilitiesOf(dormantModel),
      undefined,
      true,
      controller.signal,
    );
    const builder = new StreamBuilder(
      { requestId, provider: definition.name, provenance: undefined, model: dormantModel, startedAt: 0.5 },
      ignore,
    );
    const timers = http.createTimers(attemptController);
    const response = new LightResponse(200, '', {}, new LightBody(ignore, ignore));
    return [
      controller,
      attemptController,
      stream,
      context,
      builder,
      timers,
      response,
      ...attempt(() => dormantParser(runtime, context, builder)),
      ...attempt(() => [dormantRequest(definition)]),
    ];
  } catch {
    return [];
  }
}

/** `make()`'s objects, or none when it throws. */
function attempt(make: () => object[]): object[] {
  try {
    return make();
  } catch {
    return [];
  }
}

/** The protocol's stream parser (its reader, scanner …) and the stream's decoder. */
function dormantParser(runtime: HttpRuntime, context: CallContext, builder: StreamBuilder): object[] {
  const { definition, maxEventBytes } = runtime;
  const parser = definition.createStreamParser(context, builder);
  return [
    parser,
    definition.createStreamDecoder?.(parser, maxEventBytes) ?? new SseDecoder(ignore, maxEventBytes),
  ];
}

/**
 * The boundary's copy of the everyday request (a model, one user text turn, an output limit), made
 * as `stream-call.ts` makes it: the copy is built a member at a time, so its hidden classes are kept
 * only by such objects (other shapes branch off these). The wire body is left out: building it
 * would run the definition's `buildRequest`, which an adapter-kit definition may observe.
 */
function dormantRequest(definition: ProviderDefinition): object {
  const untrusted = { model: dormantModel, transcript: [userText(dormantModel)], maxOutputTokens: 1 };
  const { request } = validateCall(definition.name, untrusted, undefined);
  request.requestId ??= createRequestId();
  return request;
}
