/**
 * What a request reads from the gateway's state store for what its client protocol has no field
 * for (call entries, Gemini text signatures) is bounded per request, through the gateway itself:
 * a history of hundreds of turns makes at most `maxArtifactReads` reads, the text signatures'
 * share first. Found by a prober (30,000 tool calls made 30,000 Redis GETs per request, 429s
 * included) and a reviewer (a route to Gemini made twice the bound).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore, type Gateway } from 'switchyard-ai/gateway';
import { type Emulator, startEmulator } from 'switchyard-ai/testing';
import { maxArtifactReads } from '../../src/gateway/store.ts';
import { maxTextSignatureReads } from '../../src/gateway/text-signatures.ts';
import { createEmulatedGateway } from '../support/emulated.ts';

let emulator: Emulator;
let gateway: Gateway;
const reads: string[] = [];

beforeAll(async () => {
  emulator = await startEmulator();
  const store = createMemoryStore();
  const get = store.get.bind(store);
  store.get = (id, hold) => {
    reads.push(id);
    return get(id, hold);
  };
  gateway = createEmulatedGateway(emulator.url, {
    store,
    logger: { warn: () => {} },
    adapters: { gemini: 'gemini', openai: 'openai' },
    apiKey: 'upstream-key',
    config: {
      models: {
        'gemini:gemini-3-pro-preview': { aliases: ['up-gemini3'] },
        'openai:gpt-5-mini': { aliases: ['up-chat'] },
      },
    },
  });
});
afterAll(() => emulator.close());

/** A Chat history of `turns` assistant turns, each with text and a call, and its result. */
function history(turns: number): object[] {
  const messages: object[] = [{ role: 'user', content: 'Go.' }];
  for (let index = 0; index < turns; index++)
    messages.push(
      {
        role: 'assistant',
        content: `Step ${index}.`,
        tool_calls: [{ id: `call_${index}`, type: 'function', function: { name: 'step', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: `call_${index}`, content: 'done' },
    );
  messages.push({ role: 'user', content: 'And now?' });
  return messages;
}

async function post(model: string, turns: number): Promise<void> {
  emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'text', text: 'Done.' }],
    usage: { input: 3, output: 1 },
  });
  reads.length = 0;
  const response = await gateway.app.request('/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model,
      messages: history(turns),
      tools: [
        { type: 'function', function: { name: 'step', parameters: { type: 'object', properties: {} } } },
      ],
    }),
  });
  expect(response.status, await response.text()).toBe(200);
}

describe('state-store reads per request', () => {
  it(`a route to Gemini reads ${maxTextSignatureReads} text signatures and the calls' entries the rest: ${maxArtifactReads} in all`, async () => {
    await post('up-gemini3', 400);
    expect(reads.filter((id) => id.startsWith('text:'))).toHaveLength(maxTextSignatureReads);
    expect(reads.filter((id) => id.startsWith('call:'))).toHaveLength(
      maxArtifactReads - maxTextSignatureReads,
    );
    // The latest calls' entries: the last call of the history is among them, the first is not.
    expect(reads).toContain('call::call_399');
    expect(reads).not.toContain('call::call_0');
  });

  it(`a route to another provider reads no text signatures, and ${maxArtifactReads} calls' entries`, async () => {
    await post('up-chat', 400);
    expect(reads.filter((id) => id.startsWith('text:'))).toHaveLength(0);
    expect(reads.filter((id) => id.startsWith('call:'))).toHaveLength(maxArtifactReads);
  });
});
