/** Fault injection over real sockets: disconnects, malformed events, stalls, drips and split writes. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Emulator, type EmulatorFault, type SseScript, startEmulator } from './index.ts';
import {
  anthropicBody,
  anthropicHeaders,
  fixture,
  openaiHeaders,
  parseSse,
  postJson,
  readRaw,
} from './test-support.ts';
import { planPieces } from './writer.ts';

let emulator: Emulator;

beforeEach(async () => {
  emulator = await startEmulator();
});

afterEach(async () => {
  await emulator.close();
});

const chatBody = { model: 'gpt-4.1-nano', stream: true, messages: [{ role: 'user', content: 'Hi' }] };

function sseScript(fault: EmulatorFault, count = 5): SseScript {
  const events = Array.from({ length: count }, (_, index) => ({
    event: 'tick',
    data: { index, text: 'é🌍' },
  }));
  return { type: 'sse', events, fault };
}

function expectedSse(count: number): string {
  return Array.from(
    { length: count },
    (_, index) => `event: tick\ndata: ${JSON.stringify({ index, text: 'é🌍' })}\n\n`,
  ).join('');
}

function send(): Promise<Response> {
  return postJson(`${emulator.url}/v1/chat/completions`, chatBody, openaiHeaders);
}

describe('disconnect', () => {
  it('destroys the socket after N events so the client sees N frames and then an error', async () => {
    emulator.enqueue({
      type: 'replay',
      file: fixture('anthropic/anthropic-text.chunks.txt'),
      fault: { disconnectAfterEvents: 3 },
    });
    const response = await postJson(
      `${emulator.url}/v1/messages`,
      anthropicBody({ stream: true }),
      anthropicHeaders,
    );
    expect(response.status).toBe(200);
    const read = await readRaw(response);
    expect(read.error).toBeInstanceOf(Error);
    expect(parseSse(read.bytes.toString('utf8')).map((frame) => frame.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
    ]);
  });

  it('cuts a JSON body after the given number of bytes', async () => {
    emulator.enqueue({
      type: 'json',
      body: { message: 'x'.repeat(200) },
      fault: { disconnectAfterBytes: 50 },
    });
    const read = await readRaw(await send());
    expect(read.error).toBeInstanceOf(Error);
    expect(read.bytes.length).toBe(50);
  });
});

describe('malformed event', () => {
  it('replaces the data of the Nth event (1-based) with invalid JSON', async () => {
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'Hello world' }],
      fault: { malformedAtEvent: 2 },
    });
    const frames = parseSse(await (await send()).text());
    expect(frames[1]?.data).toBe('{"type": garbage');
    expect(() => JSON.parse(frames[1]?.data ?? '')).toThrow();
    for (const frame of [frames[0], ...frames.slice(2, -1)])
      expect(() => JSON.parse(frame?.data ?? '')).not.toThrow();
    expect(frames.at(-1)?.data).toBe('[DONE]');
  });

  it('corrupts a verbatim .sse frame while keeping its framing', async () => {
    emulator.enqueue({
      type: 'replay',
      file: fixture('openai-compatible/chat/anthropic-fallback-tool-call.sse'),
      fault: { malformedAtEvent: 1 },
    });
    const frames = parseSse(await (await send()).text());
    expect(frames[0]?.data).toBe('{"type": garbage');
    expect(frames).toHaveLength(9);
  });
});

describe('stall', () => {
  it('keeps the socket open after N events and close() still returns promptly', async () => {
    emulator.enqueue(sseScript({ stallAfterEvents: 2 }));
    const response = await send();
    const reader = response.body?.getReader();
    const decoder = new TextDecoder();
    let received = '';
    while (parseSse(received).length < 2) {
      const chunk = await reader?.read();
      received += decoder.decode(chunk?.value, { stream: true });
    }
    const pending = reader?.read();
    const outcome = await Promise.race([
      pending?.then(() => 'data'),
      new Promise((resolve) => setTimeout(() => resolve('stalled'), 150)),
    ]);
    expect(outcome).toBe('stalled');
    const started = Date.now();
    await emulator.close();
    expect(Date.now() - started).toBeLessThan(1000);
    await expect(pending).rejects.toThrow();
  });

  it('stalls before any event when asked to stall after zero, headers already sent', async () => {
    emulator.enqueue(sseScript({ stallAfterEvents: 0 }));
    const response = await send();
    expect(response.status).toBe(200);
    await emulator.close();
    expect((await readRaw(response)).bytes.length).toBe(0);
  });
});

describe('timing', () => {
  it('drips events with the given delay between them', async () => {
    emulator.enqueue(sseScript({ dripMs: 40 }, 4));
    const response = await send();
    const reader = response.body?.getReader();
    const decoder = new TextDecoder();
    const arrivals: number[] = [];
    let received = '';
    for (;;) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) break;
      received += decoder.decode(chunk.value, { stream: true });
      arrivals.push(Date.now());
    }
    expect(received).toBe(expectedSse(4));
    expect(arrivals.length).toBeGreaterThanOrEqual(4);
    expect((arrivals.at(-1) ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThanOrEqual(3 * 40 - 15);
  });

  it('delays the status line and headers', async () => {
    emulator.enqueue({ type: 'json', body: { ok: true }, fault: { delayHeadersMs: 120 } });
    const started = Date.now();
    const response = await send();
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(await response.json()).toEqual({ ok: true });
  });
});

describe('split writes', () => {
  it('writes every byte separately, inside multi-byte characters, and the bytes reassemble', async () => {
    emulator.enqueue(sseScript({ splitBytes: 'every-byte' }, 3));
    const read = await readRaw(await send());
    expect(read.error).toBeUndefined();
    expect(read.bytes.equals(Buffer.from(expectedSse(3), 'utf8'))).toBe(true);
    // How many reads the client sees depends on socket timing; what the emulator plans is exact.
    const bytes = Buffer.byteLength(expectedSse(3), 'utf8');
    const { pieces } = planPieces([bytes], { splitBytes: 'every-byte' });
    expect(pieces).toHaveLength(bytes);
    expect(pieces.every((piece) => piece.end - piece.start === 1)).toBe(true);
  });

  it('splits a JSON body at given offsets, one of them inside a euro sign', async () => {
    const body = '{"price":"10€"}';
    const euro = Buffer.from(body).indexOf(Buffer.from('€'));
    emulator.enqueue({ type: 'json', body, fault: { splitBytes: [3, euro + 1, euro + 2] } });
    const response = await send();
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(await response.text()).toBe(body);
  });

  it('plans pieces at fixed sizes, event boundaries and offsets inside a character', () => {
    const euroEvent = Buffer.from('a€b');
    const { pieces, ending } = planPieces([euroEvent.length, 3], { splitBytes: [2] });
    expect(ending).toBe('end');
    expect(pieces).toEqual([
      { start: 0, end: 2, endsEvent: false },
      { start: 2, end: 5, endsEvent: true },
      { start: 5, end: 8, endsEvent: true },
    ]);
    expect(euroEvent.subarray(0, 2).toString('utf8')).toContain('\uFFFD');
    const sized = planPieces([10], { splitBytes: { size: 4 } }).pieces.map(
      (piece) => piece.end - piece.start,
    );
    expect(sized).toEqual([4, 4, 2]);
  });

  it('plans the earliest of stall and disconnect', () => {
    expect(planPieces([5, 5, 5], { stallAfterEvents: 2, disconnectAfterEvents: 1 })).toMatchObject({
      ending: 'disconnect',
      pieces: [{ start: 0, end: 5 }],
    });
    expect(planPieces([5, 5, 5], { stallAfterEvents: 1, disconnectAfterEvents: 2 }).ending).toBe('stall');
  });
});
