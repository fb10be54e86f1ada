/** A minimal provider definition for testing the shared runtime (not exported from the package). */
import type { Capabilities } from '../../core/capabilities.ts';
import { NetworkError } from '../../core/errors/network-error.ts';
import type { ToolCallId } from '../../core/ids.ts';
import { allCapabilities } from '../../testing/scripted-adapter.ts';
import type { ProviderDefinition } from './definition.ts';

/**
 * Wire protocol: SSE `data:` JSON events `{t:'text', v}`, `{t:'tool', id, name}`, `{t:'args', v}`,
 * `{t:'end'}` (terminal), `{t:'error', code, message}`; non-streaming body `{text}`.
 */
export function createTestDefinition(capabilities: Partial<Capabilities> = {}): ProviderDefinition {
  return {
    name: 'test',
    protocol: 'test',
    baseURL: 'http://127.0.0.1:9',
    headers: (apiKey): Record<string, string> =>
      apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` },
    capabilities: () => ({ ...allCapabilities, ...capabilities }),
    buildRequest: (request, context) => ({
      path: '/v1/chat/completions',
      body: { model: context.model, stream: context.stream, max: request.maxOutputTokens },
    }),
    parseResponse(body, _context, builder) {
      builder.start();
      builder.text(0, (body as { text: string }).text);
    },
    createStreamParser(context, builder) {
      let ended = false;
      return {
        onEvent(_event, data) {
          const chunk = JSON.parse(data) as {
            t: string;
            v?: string;
            id?: string;
            name?: string;
            code?: string;
            message?: string;
          };
          switch (chunk.t) {
            case 'text':
              builder.text('text', chunk.v ?? '');
              return;
            case 'tool':
              builder.toolStart('tool', chunk.id as ToolCallId, chunk.name ?? 'tool');
              return;
            case 'args':
              builder.toolDelta('tool', chunk.v ?? '');
              return;
            case 'end':
              ended = true;
              builder.setFinish('completed', 'end');
              return;
            case 'error':
              context.fail({ code: chunk.code, message: chunk.message });
          }
        },
        onEnd() {
          if (!ended)
            throw new NetworkError({
              message: 'test: stream ended early',
              retryable: true,
              providerCode: 'stream_truncated',
            });
        },
      };
    },
    parseErrorBody(text) {
      try {
        const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
        return { code: body.error?.code, message: body.error?.message };
      } catch {
        return { message: text.slice(0, 200) };
      }
    },
    errorRules: [{ code: 'overloaded', errorClass: 'rate_limit' }],
    estimateInputTokens: () => 0,
    listModels: { path: '/v1/models', parse: () => [] },
  };
}
