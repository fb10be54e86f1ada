/**
 * Beta flags: a gateway client's own (`providerOptions.anthropic.clientBetas`) are sent by the
 * Anthropic API's adapter only, merged with the operator's; the `context-1m-*` flag opens the 1M
 * window of the models that have one.
 */
import { describe, expect, it } from 'vitest';
import { contextWindowOf } from '../../core/capability-check.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { buildRequest as buildInvokeRequest } from '../bedrock/invoke.ts';
import { invokeCapabilities } from '../bedrock/capabilities.ts';
import { createTestContext as createBedrockContext } from '../bedrock/test-support.ts';
import { anthropicCapabilities } from './capabilities.ts';
import { createAnthropicDefinition } from './definition.ts';
import { createTestContext } from './test-support.ts';

const request = (anthropic: Record<string, string[]>): CanonicalRequest => ({
  model: 'anthropic:claude-sonnet-4-5',
  maxOutputTokens: 100,
  transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'q' }] }],
  providerOptions: { anthropic },
});

describe('client beta flags', () => {
  it('the Anthropic adapter sends them merged with the operator’s, each once', () => {
    const definition = createAnthropicDefinition({ betas: ['operator-flag-2025-01-01'] });
    const wire = definition.buildRequest(
      request({ clientBetas: ['interleaved-thinking-2025-05-14', 'operator-flag-2025-01-01'] }),
      createTestContext(),
    );
    expect(wire.headers).toEqual({
      'anthropic-beta': 'operator-flag-2025-01-01,interleaved-thinking-2025-05-14',
    });
  });

  it('Claude on Bedrock never sends them (its per-request betas still go as anthropic_beta)', () => {
    const model = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
    const context = createBedrockContext('bedrock', model, invokeCapabilities(model), false);
    const client = buildInvokeRequest(
      { ...request({ clientBetas: ['interleaved-thinking-2025-05-14'] }), model: `bedrock:${model}` },
      context,
    );
    expect(client.body.anthropic_beta).toBeUndefined();
    expect(client.headers?.['anthropic-beta']).toBeUndefined();
    const own = buildInvokeRequest(
      { ...request({ betas: ['interleaved-thinking-2025-05-14'] }), model: `bedrock:${model}` },
      context,
    );
    expect(own.body.anthropic_beta).toEqual(['interleaved-thinking-2025-05-14']);
  });
});

describe('the context-1m flag', () => {
  it('opens the 1M window of Sonnet 4.5 and Sonnet 4 when the request sends it, as betas or clientBetas', () => {
    for (const model of ['claude-sonnet-4-5', 'claude-sonnet-4-20250514']) {
      const capabilities = anthropicCapabilities(model);
      expect(contextWindowOf(capabilities, request({}), true)).toBeLessThan(1_000_000);
      expect(contextWindowOf(capabilities, request({ clientBetas: ['context-1m-2025-08-07'] }), true)).toBe(
        1_000_000,
      );
      expect(contextWindowOf(capabilities, request({ betas: ['context-1m-2025-08-07'] }), true)).toBe(
        1_000_000,
      );
    }
  });

  it('as clientBetas opens nothing for an adapter that does not send them (Claude on Bedrock or Vertex)', () => {
    const capabilities = anthropicCapabilities('claude-sonnet-4-5');
    const client = request({ clientBetas: ['context-1m-2025-08-07'] });
    expect(contextWindowOf(capabilities, client, false)).toBe(200_000);
    expect(contextWindowOf(capabilities, request({ betas: ['context-1m-2025-08-07'] }), false)).toBe(
      1_000_000,
    );
  });

  it('changes nothing on a model without a larger window (Haiku 4.5)', () => {
    const capabilities = anthropicCapabilities('claude-haiku-4-5');
    expect(contextWindowOf(capabilities, request({ clientBetas: ['context-1m-2025-08-07'] }), true)).toBe(
      capabilities.contextWindow,
    );
  });

  it('an adapter configured with it declares the 1M window', () => {
    const plain = createAnthropicDefinition().capabilities('claude-sonnet-4-5');
    const long = createAnthropicDefinition({ betas: ['context-1m-2025-08-07'] }).capabilities(
      'claude-sonnet-4-5',
    );
    expect(plain.contextWindow).toBe(200_000);
    expect(long.contextWindow).toBe(1_000_000);
    expect(
      createAnthropicDefinition({ betas: ['context-1m-2025-08-07'] }).capabilities('claude-haiku-4-5'),
    ).toMatchObject({ contextWindow: 200_000 });
  });
});
