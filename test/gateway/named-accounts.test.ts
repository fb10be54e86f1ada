/**
 * Two accounts of one provider behind the gateway (`acct-a`, `acct-b`: two OpenAI Responses
 * adapters, two API keys, one emulator that binds encrypted reasoning to the key it was issued to, as
 * OpenAI binds it to the organization): a fallback from one to the other never sends the first
 * account's encrypted reasoning (dropped with the projection WARN; before, acct-b answered 400
 * `invalid_encrypted_content` and the client got the error), and the access log names the account
 * that served each call.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type OpenAI from 'openai';
import { createMemoryLogger } from 'switchyard-ai';
import type { GatewayServer } from 'switchyard-ai/gateway';
import { type Emulator, protocolError } from 'switchyard-ai/testing';
import { startEmulatedGateway } from '../support/emulated.ts';
import { createClients } from './harness.ts';

let emulator: Emulator;
let server: GatewayServer;
let close: () => Promise<void>;
const logger = createMemoryLogger();
const access: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  const account = (key: string) => ({ type: 'openai-responses', api_key: key });
  ({ emulator, server, close } = await startEmulatedGateway({
    logger,
    accessLog: (line) => access.push(line as unknown as Record<string, unknown>),
    adapters: { 'acct-a': account('sk-org-a-0000000000'), 'acct-b': account('sk-org-b-1111111111') },
    config: {
      models: {
        'acct-a:gpt-5-mini': { aliases: ['gpt-5-mini'], fallbacks: ['acct-b:gpt-5-mini'] },
        'acct-b:gpt-5-mini': {},
      },
      routing: { failure_threshold: 1000 },
    },
  }));
});
afterAll(() => close?.());

const tools: OpenAI.Responses.Tool[] = [
  {
    type: 'function',
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    strict: false,
  },
];

it("a fallback to another account of the provider drops the first account's encrypted reasoning with the WARN, and the access log names each account", async () => {
  const { openai } = createClients(server.url);
  emulator.enqueue({
    type: 'scripted',
    content: [
      { type: 'reasoning', text: 'Look it up.' },
      { type: 'tool-call', name: 'get_weather', input: { city: 'Paris' } },
    ],
  });
  const request = {
    model: 'gpt-5-mini',
    tools,
    store: false,
    include: ['reasoning.encrypted_content' as const],
    reasoning: { effort: 'low' as const },
  };
  const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Paris?' }];
  const first = await openai.responses.create({ ...request, input });
  expect(first.output.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
  const call = first.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
  input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]), {
    type: 'function_call_output',
    call_id: call.call_id,
    output: 'sunny',
  });
  emulator.enqueue(protocolError('openai-responses', 'rate_limit'));
  emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Sunny.' }] });
  const second = await openai.responses.create({ ...request, input });
  expect(second.output_text).toBe('Sunny.');
  const sent = emulator.requests.at(-1)!;
  expect(sent.headers.authorization).toBe('Bearer sk-org-b-1111111111');
  const items = (sent.body as { input: Array<{ type: string }> }).input;
  expect(items.map((item) => item.type)).toEqual(['message', 'function_call', 'function_call_output']);
  expect(logger.entries.map((entry) => entry.fields?.reason)).toContain(
    'reasoning produced by acct-a cannot be verified by acct-b',
  );
  expect(access.map((line) => line.provider)).toEqual(['acct-a', 'acct-b']);
});
