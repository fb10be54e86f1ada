import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../core/events.ts';
import type { ToolCallId } from '../core/ids.ts';
import { userText } from '../core/transcript.ts';
import { assertStreamInvariants } from './invariants.ts';
import { createScriptedAdapter } from './scripted-adapter.ts';

const request = { model: 'scripted:model', transcript: [userText('hi')], maxOutputTokens: 100 };

describe('createScriptedAdapter', () => {
  it('streams scripted parts under the stream contract and records requests', async () => {
    const adapter = createScriptedAdapter([
      {
        content: [
          { type: 'reasoning', text: 'thinking about it', signature: 's' },
          { type: 'text', text: 'Hello world, this is scripted.' },
          { type: 'tool-call', id: 'tu_1' as ToolCallId, name: 'lookup', input: { q: 'x' } },
        ],
        usage: { input: 5, output: 9 },
      },
    ]);
    const events: StreamEvent[] = [];
    for await (const event of adapter.stream(request)) events.push(event);
    assertStreamInvariants(events);
    const finish = events.at(-1);
    expect(finish?.type === 'finish' && finish.response).toMatchObject({
      finishReason: 'tool-call',
      usage: { input: 5, output: 9 },
      content: [
        { type: 'reasoning', text: 'thinking about it', signature: 's' },
        { type: 'text', text: 'Hello world, this is scripted.' },
        { type: 'tool-call', id: 'tu_1', input: { q: 'x' } },
      ],
    });
    expect(adapter.requests).toHaveLength(1);
  });

  it('a scripted mid-stream error yields finish(error) then throws', async () => {
    const adapter = createScriptedAdapter([
      { content: [{ type: 'text', text: 'partial' }], error: new Error('boom') },
    ]);
    const events: StreamEvent[] = [];
    await expect(
      (async () => {
        for await (const event of adapter.stream(request)) events.push(event);
      })(),
    ).rejects.toThrow('boom');
    assertStreamInvariants(events);
    expect(events.at(-1)).toMatchObject({
      response: { finishReason: 'error', content: [{ type: 'text', text: 'partial' }] },
    });
  });

  it('cancel(requestId) ends the stream as cancelled; returns false the second time', async () => {
    const adapter = createScriptedAdapter([
      { content: [{ type: 'text', text: 'x'.repeat(500) }], chunkSize: 1 },
    ]);
    const events: StreamEvent[] = [];
    for await (const event of adapter.stream({ ...request, requestId: 'r1' as never })) {
      events.push(event);
      if (event.type === 'text-delta' && events.length === 5) expect(adapter.cancel('r1')).toBe(true);
    }
    expect(adapter.cancel('r1')).toBe(false);
    assertStreamInvariants(events);
    expect(events.at(-1)).toMatchObject({ response: { finishReason: 'cancelled' } });
  });

  it('an already-aborted signal ends the call as cancelled', async () => {
    const adapter = createScriptedAdapter([{ content: [{ type: 'text', text: 'never' }] }]);
    const response = await adapter.stream(request, { signal: AbortSignal.abort() }).result();
    expect(response.finishReason).toBe('cancelled');
  });

  it('rejects a request needing a capability it was configured without', async () => {
    const adapter = createScriptedAdapter([], { capabilities: { tools: false } });
    await expect(
      adapter.complete({ ...request, tools: [{ name: 't', inputSchema: {} }] }),
    ).rejects.toMatchObject({
      errorClass: 'invalid_request',
    });
  });
});
