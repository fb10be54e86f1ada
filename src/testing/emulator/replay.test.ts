/** Replay of recorded fixtures over loopback: framing of .chunks.txt, .json and .sse files. */
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from './index.ts';
import {
  anthropicBody,
  anthropicHeaders,
  fixture,
  geminiHeaders,
  openaiHeaders,
  parseSse,
  postJson,
} from './test-support.ts';

let emulator: Emulator;

beforeEach(async () => {
  emulator = await startEmulator();
});

afterEach(async () => {
  await emulator.close();
});

async function lines(relativePath: string): Promise<string[]> {
  return (await readFile(fixture(relativePath), 'utf8')).split('\n').filter((line) => line.trim() !== '');
}

describe('replay of .chunks.txt', () => {
  it('frames Anthropic chunks with an event line taken from each payload type', async () => {
    const file = 'anthropic/anthropic-text.chunks.txt';
    emulator.enqueue({ type: 'replay', file: fixture(file) });
    const response = await postJson(
      `${emulator.url}/v1/messages`,
      anthropicBody({ stream: true }),
      anthropicHeaders,
    );
    const expected = (await lines(file))
      .map((line) => `event: ${JSON.parse(line).type}\ndata: ${line}\n\n`)
      .join('');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(await response.text()).toBe(expected);
  });

  it('frames OpenAI chat chunks as data lines ending with [DONE]', async () => {
    const file = 'openai/chat/openai-text.chunks.txt';
    emulator.enqueue({ type: 'replay', file: fixture(file) });
    const body = { model: 'gpt-4.1-nano', stream: true, messages: [{ role: 'user', content: 'Hi' }] };
    const response = await postJson(`${emulator.url}/v1/chat/completions`, body, openaiHeaders);
    const expected = `${(await lines(file)).map((line) => `data: ${line}\n\n`).join('')}data: [DONE]\n\n`;
    expect(await response.text()).toBe(expected);
  });

  it('frames OpenAI Responses chunks with event lines', async () => {
    const file = 'openai/responses/openai-reasoning-encrypted-content.1.chunks.txt';
    emulator.enqueue({ type: 'replay', file: fixture(file) });
    const response = await postJson(
      `${emulator.url}/v1/responses`,
      { model: 'gpt-5', stream: true, input: 'Hi' },
      openaiHeaders,
    );
    const expected = (await lines(file))
      .map((line) => `event: ${JSON.parse(line).type}\ndata: ${line}\n\n`)
      .join('');
    expect(await response.text()).toBe(expected);
  });

  it('frames Gemini chunks as data lines without [DONE]', async () => {
    const file = 'google/google-tool-call-gemini3.chunks.txt';
    emulator.enqueue({ type: 'replay', file: fixture(file) });
    const response = await postJson(
      `${emulator.url}/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse`,
      { contents: [{ role: 'user', parts: [{ text: 'Weather?' }] }] },
      geminiHeaders,
    );
    const text = await response.text();
    expect(text).toBe((await lines(file)).map((line) => `data: ${line}\n\n`).join(''));
    expect(text).not.toContain('[DONE]');
  });

  it('uses the protocol named by the script on a path it does not know', async () => {
    emulator.enqueue({
      type: 'replay',
      file: fixture('anthropic/anthropic-text.chunks.txt'),
      protocol: 'openai-chat',
    });
    const response = await fetch(`${emulator.url}/custom/endpoint`, { method: 'POST', body: '{}' });
    const frames = parseSse(await response.text());
    expect(frames.at(-1)?.data).toBe('[DONE]');
    expect(frames.every((frame) => frame.event === undefined)).toBe(true);
  });

  it('infers the framing from the fixture path when the request path says nothing', async () => {
    emulator.enqueue({ type: 'replay', file: pathToFileURL(fixture('anthropic/anthropic-text.chunks.txt')) });
    const response = await fetch(`${emulator.url}/custom/endpoint`, { method: 'POST', body: '{}' });
    expect(parseSse(await response.text())[0]?.event).toBe('message_start');
  });
});

describe('replay of whole bodies', () => {
  it('serves a .json file verbatim as a JSON 200', async () => {
    const file = 'anthropic/anthropic-text.json';
    emulator.enqueue({ type: 'replay', file: fixture(file) });
    const response = await postJson(`${emulator.url}/v1/messages`, anthropicBody(), anthropicHeaders);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.text()).toBe(await readFile(fixture(file), 'utf8'));
  });

  it('serves a recorded error body with the status and headers of the script', async () => {
    emulator.enqueue({
      type: 'replay',
      file: fixture('google/google-429-retry-info.json'),
      status: 429,
      headers: { 'retry-after': '35' },
    });
    const response = await postJson(
      `${emulator.url}/v1beta/models/gemini-2.5-flash:generateContent`,
      { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] },
      geminiHeaders,
    );
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('35');
    const body = (await response.json()) as { error: { status: string } };
    expect(body.error.status).toBe('RESOURCE_EXHAUSTED');
  });

  it('serves an OpenAI error fixture for a streaming request as JSON', async () => {
    emulator.enqueue({
      type: 'replay',
      file: fixture('openai/chat/reasoning-model-legacy-parameter-error.json'),
      status: 400,
    });
    const body = { model: 'o3', stream: true, max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] };
    const response = await postJson(`${emulator.url}/v1/chat/completions`, body, openaiHeaders);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unsupported_parameter');
  });

  it('serves an .sse file byte for byte', async () => {
    const file = 'openai-compatible/chat/anthropic-fallback-tool-call.sse';
    emulator.enqueue({ type: 'replay', file: fixture(file) });
    const body = { model: 'claude', stream: true, messages: [{ role: 'user', content: 'Read a.txt' }] };
    const response = await postJson(`${emulator.url}/v1/chat/completions`, body, openaiHeaders);
    expect(await response.text()).toBe(await readFile(fixture(file), 'utf8'));
  });

  it('answers 500 with the reason when the fixture file is missing', async () => {
    emulator.enqueue({ type: 'replay', file: fixture('anthropic/no-such-file.json') });
    const response = await postJson(`${emulator.url}/v1/messages`, anthropicBody(), anthropicHeaders);
    expect(response.status).toBe(500);
    expect(await response.text()).toContain('emulator: ENOENT');
  });
});
