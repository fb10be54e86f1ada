/**
 * A whitespace-only stop sequence (a Chat client's `stop: "\n"`), which Claude refuses, is not sent
 * but applied here, on every host of Claude: the Anthropic API, Vertex, and Bedrock by InvokeModel
 * and by Converse. Vertex and InvokeModel build the Anthropic body on a copy of the call's context;
 * the sequences to apply were once kept on that copy, so the reply ran past them (`completed`, the
 * whole text) — the sequence neither sent nor applied.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../src/core/request.ts';
import { collectStream } from '../../src/testing/collect.ts';
import { type Emulator, startEmulator } from '../../src/testing/index.ts';
import { claudeHosts } from '../support/claude-hosts.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator?.close();
});

const hosts = claudeHosts(() => emulator.url, ['invoke', 'converse']);

describe.each(hosts)('Claude on %s with stop sequences ["\\n", "ZZZ"]', (_host, model, create) => {
  const request: CanonicalRequest = {
    model,
    transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
    maxOutputTokens: 64,
    stopSequences: ['\n', 'ZZZ'],
  };
  const script = () =>
    emulator.enqueue({
      type: 'scripted',
      chunkSize: 3,
      content: [{ type: 'text', text: 'Line one.\nLine two.' }],
    });
  const sentStops = () => {
    const body = emulator.requests.at(-1)!.body as {
      stop_sequences?: unknown;
      inferenceConfig?: { stopSequences?: unknown };
    };
    return body.stop_sequences ?? body.inferenceConfig?.stopSequences;
  };

  it('whole: only "ZZZ" is sent, and the reply is cut at the line end', async () => {
    const adapter = create();
    try {
      script();
      const reply = await adapter.complete(request);
      expect(sentStops()).toEqual(['ZZZ']);
      expect(reply.content).toEqual([{ type: 'text', text: 'Line one.' }]);
      expect(reply.finishReason).toBe('stop-sequence');
      expect(reply.metadata?.['switchyard.stop_sequence']).toBe('\n');
    } finally {
      await adapter.close();
    }
  });

  it('streamed: the same cut', async () => {
    const adapter = create();
    try {
      script();
      const { response, error } = await collectStream(adapter.stream(request));
      expect(error).toBeUndefined();
      expect(sentStops()).toEqual(['ZZZ']);
      expect(response?.content).toEqual([{ type: 'text', text: 'Line one.' }]);
      expect(response?.finishReason).toBe('stop-sequence');
    } finally {
      await adapter.close();
    }
  });
});
