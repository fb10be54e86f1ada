/** Test helpers for the Bedrock and Vertex adapters: a provider context without a network. */
import { createSession } from '../../core/adapter.ts';
import type { Capabilities } from '../../core/capabilities.ts';
import type { RequestId } from '../../core/ids.ts';
import { createMemoryLogger } from '../../core/logger.ts';
import type { ProviderContext } from '../common/definition.ts';
import { createProviderError } from '../common/errors.ts';
import { errorRules } from './errors.ts';

/** A context for `buildRequest` / parsers of provider `provider` and `model`, WARNs kept in `logger`. */
export function createTestContext(
  provider: string,
  model: string,
  capabilities: Capabilities,
  stream = false,
): ProviderContext & { logger: ReturnType<typeof createMemoryLogger> } {
  const logger = createMemoryLogger();
  const requestId = 'req_test' as RequestId;
  const session = createSession();
  return {
    requestId,
    provider,
    model,
    capabilities,
    session,
    logger,
    stream,
    warn(message, fields) {
      logger.warn(message, { adapter: provider, requestId, sessionId: session.id, ...fields });
    },
    fail(body, status) {
      throw createProviderError({
        site: { provider, method: 'POST', url: 'test', requestId },
        status,
        body,
        rules: errorRules,
      });
    },
    fetchJson: () => Promise.reject(new Error('no network in unit tests')),
  };
}
