/**
 * The request id a client's SDK reads: the OpenAI SDK reads `x-request-id`, the Anthropic SDK
 * `request-id` (into a message's `_request_id` and an error's `requestID`); the gateway sends both
 * to Anthropic clients, the one it logs, on replies and on errors.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { protocolError } from 'switchyard-ai/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorScript } from '../../src/testing/emulator/types.ts';
import { type GatewayHarness, startGatewayHarness, upstreams } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(() => harness.close());

const answer = { type: 'scripted', content: [{ type: 'text', text: 'Hi.' }] } as EmulatorScript;
const logged = () => harness.accessLog.at(-1)!.requestId;

describe('request ids the SDKs read', () => {
  it('Anthropic SDK: a message’s _request_id and an error’s requestID are the logged request id', async () => {
    const client = new Anthropic({ baseURL: harness.server.url, apiKey: 'k', maxRetries: 0 });
    const ask = () =>
      client.messages.create({
        model: upstreams['openai-chat'].alias,
        max_tokens: 32,
        messages: [{ role: 'user', content: 'Hi' }],
      });
    harness.emulator.enqueue(answer);
    const message = await ask();
    expect(message._request_id).toBe(logged());
    harness.emulator.enqueue(protocolError('openai-chat', 'server_error'));
    const failure = (await ask().catch((error: unknown) => error)) as InstanceType<typeof Anthropic.APIError>;
    expect(failure).toBeInstanceOf(Anthropic.APIError);
    expect(failure.requestID).toBe(logged());
  });

  it('OpenAI SDK: a completion’s _request_id is the logged request id', async () => {
    const client = new OpenAI({ baseURL: `${harness.server.url}/v1`, apiKey: 'k', maxRetries: 0 });
    harness.emulator.enqueue(answer);
    const completion = await client.chat.completions.create({
      model: upstreams['anthropic-messages'].alias,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(completion._request_id).toBe(logged());
  });
});
