/** `adapter.complete()`: one whole (non-streamed) call with retries. */
import type { CallOptions } from '../../core/adapter.ts';
import { joinModelId } from '../../core/ids.ts';
import type { CanonicalRequest, CanonicalResponse } from '../../core/request.ts';
import { StreamBuilder } from '../../core/stream-builder.ts';
import { readText } from '../../transport/http.ts';
import { withRetries } from '../../transport/retry.ts';
import { prepareCall, setup } from './call-setup.ts';
import {
  asClassified,
  endSession,
  errorFromResponse,
  linkedController,
  parseJsonBody,
  readResponseHeaders,
  retryGateOf,
  sendAuthorized,
  withRequestId,
} from './http-exchange.ts';
import type { HttpRuntime } from './http-runtime.ts';
import { estimateMissingUsage } from './usage-fallback.ts';
import { validateCall } from './validate-call.ts';
import { holdStopSequences } from './stop-sequences.ts';
import { holdOutputText } from './output-text.ts';
import { stripRepeatedPrefill } from './prefill.ts';

export async function completeCall(
  runtime: HttpRuntime,
  untrustedRequest: CanonicalRequest,
  untrustedOptions?: CallOptions,
): Promise<CanonicalResponse> {
  const { definition, http, registry, policy, maxBodyBytes } = runtime;
  const { request, options: callOptions } = validateCall(definition.name, untrustedRequest, untrustedOptions);
  const controller = new AbortController();
  const callSetup = setup(runtime, request, callOptions, false, controller.signal);
  const { requestId, context, call } = callSetup;
  const unregister = registry.register(requestId, controller, callOptions.signal);
  const stopDeadline = http.startDeadline(controller);
  try {
    await prepareCall(runtime, callSetup.request, callSetup, controller.signal, callOptions.headers);
    return await withRetries(
      async () => {
        const attemptController = linkedController(controller.signal);
        const timers = http.createTimers(attemptController);
        try {
          const response = await sendAuthorized(runtime, call, attemptController, timers);
          if (!response.ok) throw await errorFromResponse(runtime, response, call, attemptController, timers);
          const body = parseJsonBody(
            await readText(response, call, attemptController, timers, maxBodyBytes, 'fail'),
            call,
          );
          const builder = new StreamBuilder(
            {
              requestId,
              provider: definition.name,
              provenance: context.provenance,
              model: joinModelId(definition.name, context.model),
              startedAt: callSetup.startedAt,
              wholeReply: true,
            },
            () => {},
          );
          holdStopSequences(context, builder);
          holdOutputText(context, builder);
          stripRepeatedPrefill(context, builder);
          readResponseHeaders(definition, response.headers, builder);
          try {
            definition.parseResponse(body, context, builder);
          } catch (error) {
            throw asClassified(error, call, 'invalid_response');
          }
          if (!builder.hasUsage) estimateMissingUsage(builder, request, definition, context);
          return builder.finish();
        } finally {
          timers.dispose();
        }
      },
      {
        policy,
        signal: controller.signal,
        deadline: callSetup.startedAt + http.timeouts.timeoutMs,
        onRetry: (info) => callOptions.onRetry?.({ ...info, requestId }),
        gate: retryGateOf(callOptions, requestId),
      },
    );
  } catch (error) {
    throw withRequestId(error, requestId);
  } finally {
    stopDeadline();
    unregister();
    // A call without a session: nobody can reuse what it created provider-side.
    if (callOptions.session === undefined && definition.endSession !== undefined)
      await endSession(runtime, callSetup.context.session);
  }
}
