/**
 * The gateway at its open-files limit: a gateway process started under `prlimit --nofile` (64
 * descriptors; it holds ~23 at rest), the emulator as its upstream, 127.0.0.1 only.
 *
 * What Node 24 does there, found by these tests: an accept that fails with EMFILE never reaches the
 * server's `error` event — libuv closes its reserve descriptor, accepts the waiting connections and
 * closes them at once (`uv__emfile_trick`), so a client over the limit sees its connection closed
 * with no reply and nothing is logged; the gateway serves again as soon as descriptors come back.
 * An upstream call that cannot open its socket fails with EMFILE: the client gets a 503 in its
 * protocol's shape with `retry-after`, the operator a warning, and the provider's circuit is not
 * counted against — a healthy upstream must not be shut for the gateway's own exhaustion.
 * Linux only (`prlimit`, `/proc/<pid>/fd`).
 */
import { existsSync, readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Emulator, startEmulator } from '../../src/testing/emulator/index.ts';
import { emulatedAdapters } from '../support/emulated.ts';
import { type GatewayProcess, prlimitPath, startGatewayProcess } from '../support/gateway-processes.ts';

/** The gateway's open-files limit: room for ~40 connections over what it holds at rest. */
const openFiles = 64;

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator?.close();
});

const hello = { type: 'scripted' as const, content: [{ type: 'text' as const, text: 'Hello' }] };

async function startGateway(): Promise<GatewayProcess> {
  const gateway = await startGatewayProcess(
    {
      builtins: false,
      adapters: emulatedAdapters(emulator.url, { openai: 'openai' }, 'upstream-key'),
      models: { 'openai:gpt-4.1-mini': { aliases: ['cheap'] } },
      // Two failures open a circuit for a minute: counted, a local failure would shut the provider.
      routing: { failure_threshold: 2, cooldown_seconds: 60 },
      gateway: { access_log: false },
    },
    { openFiles },
  );
  cleanups.push(() => gateway.stop());
  return gateway;
}

/** The gateway's open descriptors. */
function descriptors(gateway: GatewayProcess): number {
  return readdirSync(`/proc/${gateway.process.pid}/fd`).length;
}

const chatBody = (stream: boolean) =>
  JSON.stringify({ model: 'cheap', stream, messages: [{ role: 'user', content: 'Hi' }] });

/** One non-streamed chat call on a fresh connection (closed after it). */
async function chat(gateway: GatewayProcess): Promise<{ status: number; body: string }> {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', connection: 'close' },
    body: chatBody(false),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: response.status, body: await response.text() };
}

/** Every stderr line of the gateway is a JSON warning (no crash, no stack trace). */
function warningsOf(gateway: GatewayProcess): Array<{ message: string } & Record<string, unknown>> {
  return gateway.warnings.map((line) => JSON.parse(line) as { message: string } & Record<string, unknown>);
}

/** A connection opened (and accepted by the kernel); `closed` resolves when the gateway ends it. */
function openConnection(port: number): Promise<{ socket: Socket; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('error', () => {});
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('close', () => reject(new Error('closed before connecting')));
  });
}

interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends one request on a connection the gateway accepted earlier and reads its reply, leaving the
 * connection open (a close would give the gateway a descriptor back). Fails on a hang.
 */
function sendOn(socket: Socket, path: string, body: string): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no reply to ${path} within 15 s`)), 15_000);
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const reply = parseReply(text);
      if (reply === undefined) return;
      clearTimeout(timer);
      socket.off('data', onData);
      resolve(reply);
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`connection closed before the reply to ${path}: ${text}`)));
    socket.write(
      `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
}

/** The reply in `text` once it is whole (a `content-length` body or a chunked one), else undefined. */
function parseReply(text: string): RawReply | undefined {
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  );
  const rest = text.slice(end + 4);
  const status = Number(statusLine!.split(' ')[1]);
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    return Buffer.byteLength(rest, 'latin1') < length
      ? undefined
      : { status, headers, body: rest.slice(0, length) };
  }
  if (!rest.endsWith('0\r\n\r\n')) return undefined;
  let body = '';
  for (let at = 0; ;) {
    const lineEnd = rest.indexOf('\r\n', at);
    const size = parseInt(rest.slice(at, lineEnd), 16);
    if (size === 0) return { status, headers, body };
    body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

describe.skipIf(process.platform !== 'linux' || !existsSync(prlimitPath))(
  'the gateway at its open-files limit',
  () => {
    it('accept side: connections over the limit are closed unanswered, the process lives and serves again once they close', async () => {
      emulator.setDefault(hello);
      const gateway = await startGateway();
      // Warm: the first call loads the adapter and the upstream pool (lazy imports open files).
      expect((await chat(gateway)).status).toBe(200);
      const atRest = descriptors(gateway);
      const port = Number(new URL(gateway.url).port);

      // Twice the limit's worth of idle connections, opened one after another.
      const connections: Array<{ socket: Socket; closed: Promise<void> }> = [];
      cleanups.push(() => connections.forEach(({ socket }) => socket.destroy()));
      let dropped = 0;
      for (let index = 0; index < 2 * openFiles; index++) {
        const connection = await openConnection(port).catch(() => undefined);
        if (connection === undefined) {
          dropped++;
          continue;
        }
        connections.push(connection);
        void connection.closed.then(() => dropped++);
      }
      // Those the gateway had no descriptor for are closed by it (libuv's EMFILE handling), the rest
      // stay open: the gateway holds as many as its limit allows.
      await vi.waitFor(
        () => expect(dropped).toBeGreaterThanOrEqual(2 * openFiles - (openFiles - atRest) - 2),
        {
          timeout: 10_000,
        },
      );
      expect(dropped).toBeLessThan(2 * openFiles);
      expect(descriptors(gateway)).toBeGreaterThanOrEqual(openFiles - 2);

      // A call while it is full: its connection is closed unanswered — an error at once, never a hang.
      await expect(chat(gateway)).rejects.toThrow();
      expect(gateway.alive()).toBe(true);
      // Nothing but JSON warnings on stderr (no uncaught exception); libuv never reports the failed accept.
      expect(() => warningsOf(gateway)).not.toThrow();

      for (const { socket } of connections) socket.destroy();
      await vi.waitFor(() => expect(descriptors(gateway)).toBeLessThanOrEqual(atRest + 2), {
        timeout: 10_000,
      });
      const served = await chat(gateway);
      expect(served.status).toBe(200);
      expect(served.body).toContain('Hello');
      expect(gateway.alive()).toBe(true);
    }, 60_000);

    it('upstream side: a call with no descriptor for its upstream socket is a 503 in its protocol’s shape, the provider’s circuit stays closed, and the gateway serves again once streams end', async () => {
      // Each stream is held open by the upstream after its first events: its socket stays in use.
      emulator.setDefault({
        ...hello,
        content: [{ type: 'text', text: 'Held' }],
        fault: { stallAfterEvents: 2 },
      });
      const gateway = await startGateway();
      const port = Number(new URL(gateway.url).port);
      // Warm (lazy imports), then connections accepted while descriptors are left, for requests later.
      expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
      const atRest = descriptors(gateway);
      const waiting = await Promise.all(Array.from({ length: 4 }, () => openConnection(port)));
      cleanups.push(() => waiting.forEach(({ socket }) => socket.destroy()));
      await vi.waitFor(() => expect(descriptors(gateway)).toBeGreaterThanOrEqual(atRest + 4), {
        timeout: 10_000,
      });

      // Streams held open (a client and an upstream socket each) until one fails: the gateway is full.
      const held: AbortController[] = [];
      cleanups.push(() => held.forEach((controller) => controller.abort()));
      for (let index = 0; index < openFiles; index++) {
        const controller = new AbortController();
        held.push(controller);
        const response = await fetch(`${gateway.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: chatBody(true),
          signal: controller.signal,
        }).catch(() => undefined);
        if (response?.status !== 200) break;
        await response.body!.getReader().read();
      }
      expect(held.length).toBeGreaterThan(5);
      expect(held.length).toBeLessThan(openFiles);

      // Four protocols on the connections accepted earlier: none has a socket for its upstream.
      const replies = await Promise.all([
        sendOn(waiting[0]!.socket, '/v1/chat/completions', chatBody(true)),
        sendOn(
          waiting[1]!.socket,
          '/v1/messages',
          JSON.stringify({
            model: 'cheap',
            max_tokens: 64,
            stream: true,
            messages: [{ role: 'user', content: 'Hi' }],
          }),
        ),
        sendOn(waiting[2]!.socket, '/v1/responses', JSON.stringify({ model: 'cheap', input: 'Hi' })),
        sendOn(
          waiting[3]!.socket,
          '/v1beta/models/cheap:generateContent',
          JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }),
        ),
      ]);
      for (const reply of replies) {
        expect(reply.status).toBe(503);
        expect(reply.headers['retry-after']).toBe('1');
        expect(reply.body).toContain(
          'the gateway has no free file descriptor to open a connection to openai (EMFILE)',
        );
      }
      const [chatReply, anthropicReply, responsesReply, geminiReply] = replies.map(
        (reply) => JSON.parse(reply.body) as Record<string, Record<string, unknown>>,
      );
      expect(chatReply!.error).toMatchObject({ type: 'server_error', code: 'out_of_file_descriptors' });
      expect(anthropicReply).toMatchObject({ type: 'error', error: { type: 'api_error' } });
      expect(responsesReply!.error).toMatchObject({ type: 'server_error', code: 'out_of_file_descriptors' });
      expect(geminiReply!.error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
      expect(gateway.alive()).toBe(true);
      const warned = warningsOf(gateway).filter(
        (line) => line.message === 'gateway: no free file descriptor for an upstream connection',
      );
      expect(warned.length).toBeGreaterThanOrEqual(4);
      expect(warned[0]).toMatchObject({ code: 'EMFILE', provider: 'openai' });

      // The streams end, their descriptors come back: served at once — the four failures (two open a
      // circuit here) were the gateway's, not the provider's.
      for (const controller of held) controller.abort();
      for (const { socket } of waiting) socket.destroy();
      await vi.waitFor(() => expect(descriptors(gateway)).toBeLessThanOrEqual(openFiles - 8), {
        timeout: 10_000,
      });
      emulator.setDefault(hello);
      const served = await chat(gateway);
      expect(served.status).toBe(200);
      expect(served.body).toContain('Hello');
    }, 60_000);
  },
);
