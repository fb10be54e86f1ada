import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession } from '../../core/adapter.ts';
import { toolCallId } from '../../core/ids.ts';
import type { Item, Part } from '../../core/transcript.ts';
import { userText } from '../../core/transcript.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { unsignedCallSignature } from './messages.ts';
import { emulatedGemini, simpleRequest, testApiKey } from './test-support.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

const model = 'gemini-3-pro-preview';
type WirePart = Record<string, unknown>;

function lastContents(): Array<{ role: string; parts: WirePart[] }> {
  const body = emulator.requests.at(-1)?.body as { contents: Array<{ role: string; parts: WirePart[] }> };
  return body.contents;
}

describe('Gemini 3 thought-signature rule over the emulator (which enforces it)', () => {
  it('the emulator really rejects an unsigned function call of the current turn', async () => {
    // The rule check consumes the queued script and answers with Google's 400 instead.
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'never' }] });
    const response = await fetch(`${emulator.url}/v1beta/models/${model}:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': testApiKey },
      body: JSON.stringify({
        contents: [
          { role: 'user', parts: [{ text: 'Weather?' }] },
          { role: 'model', parts: [{ functionCall: { name: 'weather', args: {} } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'weather', response: { output: 'sun' } } }] },
        ],
      }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('missing a thought_signature');
  });

  it('a Gemini 3 tool loop round-trips the signature Gemini gave its call', async () => {
    const { adapter } = emulatedGemini(emulator);
    const session = createSession();
    emulator.enqueue({
      type: 'scripted',
      content: [
        { type: 'tool-call', name: 'weather', input: { city: 'Paris' } },
        { type: 'tool-call', name: 'weather', input: { city: 'Rome' } },
      ],
    });
    const transcript: Item[] = [userText('Paris and Rome?')];
    const first = await adapter.complete(simpleRequest(model, { transcript }), { session });
    const calls = first.content.filter(
      (part): part is Extract<Part, { type: 'tool-call' }> => part.type === 'tool-call',
    );
    expect(calls).toHaveLength(2);
    expect(calls[0]?.signature).toBeDefined();
    transcript.push(
      { kind: 'assistant', parts: first.content },
      {
        kind: 'tool',
        parts: calls.map((call) => ({
          type: 'tool-result' as const,
          callId: call.id,
          output: { type: 'text' as const, text: `${call.input.city}: sunny` },
          isError: false,
        })),
      },
    );
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Both sunny.' }] });
    const second = await adapter.complete(simpleRequest(model, { transcript }), { session });
    expect(second.content).toEqual([{ type: 'text', text: 'Both sunny.' }]);
    const modelTurn = lastContents()[1];
    expect(modelTurn?.parts[0]?.thoughtSignature).toBe(calls[0]?.signature);
    expect(modelTurn?.parts[1]?.thoughtSignature).toBeUndefined();
    expect(lastContents()[2]?.parts.map((part) => (part.functionResponse as { name: string }).name)).toEqual([
      'weather',
      'weather',
    ]);
  });

  it('after a swap from another provider, unsigned calls carry the documented sentinel and are accepted', async () => {
    const { adapter, logger } = emulatedGemini(emulator);
    const callId = toolCallId('toolu_01XFDUDYJgAACzvnptvVoYEL');
    const transcript: Item[] = [
      userText('What is the weather in Oslo?'),
      {
        kind: 'assistant',
        parts: [
          {
            type: 'reasoning',
            text: 'I should call the tool.',
            signature: 'EqQBCkYIBxgCKkB',
            provider: 'anthropic',
          },
          { type: 'text', text: 'Let me check.' },
          { type: 'tool-call', id: callId, name: 'weather', input: { city: 'Oslo' }, provider: 'anthropic' },
        ],
      },
      {
        kind: 'tool',
        parts: [{ type: 'tool-result', callId, output: { type: 'text', text: '-3°C' }, isError: false }],
      },
    ];
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'tool-call', name: 'forecast', input: { city: 'Oslo' } }],
    });
    const response = await adapter.complete(simpleRequest(model, { transcript }));
    expect(response.finishReason).toBe('tool-call');
    const modelTurn = lastContents()[1];
    expect(modelTurn?.parts).toEqual([
      { text: 'Let me check.' },
      {
        functionCall: { name: 'weather', args: { city: 'Oslo' }, id: 'toolu_01XFDUDYJgAACzvnptvVoYEL' },
        thoughtSignature: unsignedCallSignature,
      },
    ]);
    expect(lastContents()[2]?.parts[0]).toEqual({
      functionResponse: {
        name: 'weather',
        response: { output: '-3°C' },
        id: 'toolu_01XFDUDYJgAACzvnptvVoYEL',
      },
    });
    expect(logger.entries.map((entry) => entry.fields.blockType)).toEqual(['reasoning']);
  });
});
