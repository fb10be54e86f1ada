/** Cassette recording and replay against a local server: JSON, SSE chunking, auto mode. */

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerSecrets } from '../../core/redaction.ts';
import { createCassette, matchesRedacted } from './index.ts';
import {
  createTemporaryFolder,
  readTextChunks,
  STREAM_CHUNKS,
  startTestServer,
  type TestServer,
} from './test-server.ts';
import type { CassetteFile } from './types.ts';

let server: TestServer;
let folder: Awaited<ReturnType<typeof createTemporaryFolder>>;

beforeEach(async () => {
  server = await startTestServer();
  folder = await createTemporaryFolder();
});

afterEach(async () => {
  await server.close().catch(() => {});
  await folder.remove();
});

const jsonInit = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

async function recordJsonAndStream(file: string): Promise<{ json: unknown; chunks: string[] }> {
  const cassette = await createCassette({ file, mode: 'record' });
  const json = await (
    await cassette.fetch(`${server.url}/v1/messages`, jsonInit({ model: 'm', n: 1 }))
  ).json();
  const chunks = await readTextChunks(
    await cassette.fetch(`${server.url}/v1/stream`, jsonInit({ stream: true })),
  );
  await cassette.save();
  return { json, chunks };
}

describe('cassette record and replay', () => {
  it('records a JSON and an SSE exchange, then replays them with the server closed', async () => {
    const file = join(folder.path, 'nested', 'folder', 'cassette.json');
    const recorded = await recordJsonAndStream(file);
    expect(recorded.json).toEqual({ id: 'message-1', echo: { model: 'm', n: 1 }, session: null });
    await server.close();
    const requestsWhileRecording = server.requestCount;

    const cassette = await createCassette({ file, mode: 'replay' });
    const jsonResponse = await cassette.fetch(`${server.url}/v1/messages`, jsonInit({ n: 1, model: 'm' }));
    expect(jsonResponse.status).toBe(200);
    expect(jsonResponse.headers.get('content-type')).toBe('application/json');
    expect(jsonResponse.url).toBe(`${server.url}/v1/messages`);
    expect(await jsonResponse.json()).toEqual(recorded.json);
    const streamResponse = await cassette.fetch(`${server.url}/v1/stream`, jsonInit({ stream: true }));
    expect(streamResponse.headers.get('content-type')).toBe('text/event-stream');
    expect((await readTextChunks(streamResponse)).join('')).toBe(STREAM_CHUNKS.join(''));
    cassette.assertAllUsed();
    expect(server.requestCount).toBe(requestsWhileRecording);
  });

  it('writes pretty JSON with parsed bodies, stored chunks and a trailing newline', async () => {
    const file = join(folder.path, 'cassette.json');
    await recordJsonAndStream(file);
    const text = await readFile(file, 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).toContain('\n  "exchanges": [\n');
    const content = JSON.parse(text) as CassetteFile;
    expect(content.version).toBe(1);
    expect(content.exchanges.map((exchange) => exchange.request.url)).toEqual([
      `${server.url}/v1/messages`,
      `${server.url}/v1/stream`,
    ]);
    expect(content.exchanges[0]!.request.body).toEqual({ model: 'm', n: 1 });
    expect(content.exchanges[0]!.response.body).toEqual({
      echo: { model: 'm', n: 1 },
      id: 'message-1',
      session: null,
    });
    expect(content.exchanges[1]!.response.body).toBeUndefined();
    expect(content.exchanges[1]!.response.chunks!.join('')).toBe(STREAM_CHUNKS.join(''));
  });

  it('replay reproduces the recorded chunk boundaries', async () => {
    const file = join(folder.path, 'cassette.json');
    const recorded = await recordJsonAndStream(file);
    const content = JSON.parse(await readFile(file, 'utf8')) as CassetteFile;
    const storedChunks = content.exchanges[1]!.response.chunks!;
    expect(storedChunks).toEqual(recorded.chunks);
    expect(storedChunks.length).toBeGreaterThan(1);
    await server.close();

    const cassette = await createCassette({ file, mode: 'replay' });
    await cassette.fetch(`${server.url}/v1/messages`, jsonInit({ model: 'm', n: 1 }));
    const replayed = await readTextChunks(
      await cassette.fetch(`${server.url}/v1/stream`, jsonInit({ stream: true })),
    );
    expect(replayed).toEqual(storedChunks);
  });

  it('lets the caller stream the response live while recording', async () => {
    const cassette = await createCassette({ file: join(folder.path, 'live.json'), mode: 'record' });
    const response = await cassette.fetch(`${server.url}/v1/stream`, jsonInit({ stream: true }));
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe(STREAM_CHUNKS[0]);
    expect(cassette.exchanges).toEqual([]);
    await reader.cancel();
    await cassette.save();
    expect(cassette.exchanges[0]!.response.chunks!.join('')).toBe(STREAM_CHUNKS.join(''));
  });

  it('auto mode records when the file is missing, then replays', async () => {
    const file = join(folder.path, 'auto.json');
    const recording = await createCassette({ file, mode: 'auto' });
    expect(recording.mode).toBe('record');
    await recording.fetch(`${server.url}/v1/messages`, jsonInit({ turn: 1 }));
    await recording.save();
    await server.close();

    const replaying = await createCassette({ file, mode: 'auto' });
    expect(replaying.mode).toBe('replay');
    const response = await replaying.fetch(`${server.url}/v1/messages`, jsonInit({ turn: 1 }));
    expect(await response.json()).toMatchObject({ echo: { turn: 1 } });
    const before = await readFile(file, 'utf8');
    await replaying.save();
    expect(await readFile(file, 'utf8')).toBe(before);
    replaying.assertAllUsed();
  });

  it('a second identical request takes the next matching exchange', async () => {
    const file = join(folder.path, 'twice.json');
    const recording = await createCassette({ file, mode: 'record' });
    await recording.fetch(`${server.url}/v1/models?page=1`);
    await recording.fetch(`${server.url}/v1/models?page=1`);
    await recording.save();
    const content = JSON.parse(await readFile(file, 'utf8')) as CassetteFile;
    content.exchanges[1]!.response.body = { object: 'list', second: true };
    await writeFile(file, JSON.stringify(content));

    const replaying = await createCassette({ file, mode: 'replay' });
    const first = await (await replaying.fetch(`${server.url}/v1/models?page=1`)).json();
    const second = await (await replaying.fetch(`${server.url}/v1/models?page=1`)).json();
    expect(first).not.toHaveProperty('second');
    expect(second).toEqual({ object: 'list', second: true });
  });
});

describe('cassette recording of request bodies', () => {
  it('records a Request object and a streamed body while still sending them', async () => {
    const file = join(folder.path, 'bodies.json');
    const cassette = await createCassette({ file, mode: 'record' });
    const request = new Request(`${server.url}/v1/messages`, { method: 'POST', body: '{"from":"request"}' });
    expect(await (await cassette.fetch(request)).json()).toMatchObject({ echo: { from: 'request' } });
    const stream = new Blob(['{"from":', '"stream"}']).stream();
    const init = { method: 'POST', body: stream, duplex: 'half' } as RequestInit;
    expect(await (await cassette.fetch(`${server.url}/v1/messages`, init)).json()).toMatchObject({
      echo: { from: 'stream' },
    });
    await cassette.save();
    expect(cassette.exchanges.map((exchange) => exchange.request.body)).toEqual([
      { from: 'request' },
      { from: 'stream' },
    ]);
  });
});

// These register a secret in this test file's process, so they come last.
describe('cassette replay in a process that registered other secrets than the recording one', () => {
  const email = 'jane.doe.s15@example.com';
  const url = () => `${server.url}/v1/messages?author=${email}`;
  const body = { messages: [{ role: 'user', content: `Author: ${email}` }] };

  it('a recorded [REDACTED] matches the text the replaying process does not redact', async () => {
    const file = join(folder.path, 'recorded-knew-more.json');
    const recording = await createCassette({ file, mode: 'record' });
    await recording.fetch(url(), jsonInit(body));
    await recording.save();
    // As written by a process that had registered the email (an MCP server's env, an adapter's key).
    await writeFile(file, (await readFile(file, 'utf8')).replaceAll(email, '[REDACTED]'));
    await server.close();

    const replaying = await createCassette({ file, mode: 'replay' });
    const response = await replaying.fetch(url(), jsonInit(body));
    expect(response.status).toBe(200);
    replaying.assertAllUsed();
    await expect(
      (await createCassette({ file, mode: 'replay' })).fetch(url(), jsonInit({ messages: [] })),
    ).rejects.toThrow(/no unused exchange matching/);
  });

  it('a secret registered only in the replaying process is redacted on both sides', async () => {
    const file = join(folder.path, 'replay-knows-more.json');
    const recording = await createCassette({ file, mode: 'record' });
    await recording.fetch(url(), jsonInit(body));
    await recording.save();
    expect(await readFile(file, 'utf8')).toContain(email);
    await server.close();

    registerSecrets([email]);
    const replaying = await createCassette({ file, mode: 'replay' });
    expect((await replaying.fetch(url(), jsonInit(body))).status).toBe(200);
    replaying.assertAllUsed();
  });

  it('matchesRedacted lets each [REDACTED] stand for any run of characters, nothing else', () => {
    expect(matchesRedacted('a [REDACTED] c', 'a secret-text c')).toBe(true);
    expect(matchesRedacted('a [REDACTED] c', 'a  c')).toBe(true);
    expect(matchesRedacted('a [REDACTED] c', 'a secret-text d')).toBe(false);
    expect(matchesRedacted('[REDACTED]x[REDACTED]', 'axbxc')).toBe(true);
    expect(matchesRedacted('ab[REDACTED]ba', 'aba')).toBe(false);
    expect(matchesRedacted('plain', 'plain')).toBe(true);
    expect(matchesRedacted('plain', 'plainer')).toBe(false);
  });
});
