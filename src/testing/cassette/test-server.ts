/** A tiny local HTTP server and helpers for the cassette tests; not part of the public surface. */

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The chunks the `/v1/stream` route writes, one network write each, an event split across two. */
export const STREAM_CHUNKS: readonly string[] = [
  'event: message_start\ndata: {"type":"message_start"}\n\n',
  'event: text_delta\ndata: {"text":"Hel',
  'lo"}\n\nevent: text_delta\ndata: {"text":" world"}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
];

/** A running test server. */
export interface TestServer {
  /** The base URL, e.g. `http://127.0.0.1:54321`. */
  url: string;
  /** How many requests reached the server. */
  readonly requestCount: number;
  /** Stops the server. */
  close(): Promise<void>;
}

/**
 * Starts a server on 127.0.0.1 and a free port. Routes: `POST /v1/messages` echoes the JSON body
 * and the `x-session-token` header and sets a cookie; `POST /v1/stream` streams {@link STREAM_CHUNKS}
 * as server-sent events with a pause between writes; `GET /v1/models` echoes its URL.
 */
export async function startTestServer(): Promise<TestServer> {
  let requestCount = 0;
  const server = createServer((request, response) => {
    requestCount++;
    void handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requestCount() {
      return requestCount;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  let body = '';
  for await (const chunk of request) body += chunk;
  if (request.url === '/v1/stream') {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    response.flushHeaders();
    for (const chunk of STREAM_CHUNKS) {
      response.write(chunk);
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    response.end();
    return;
  }
  const payload =
    request.method === 'GET'
      ? { object: 'list', url: request.url }
      : {
          id: 'message-1',
          echo: JSON.parse(body || 'null'),
          session: request.headers['x-session-token'] ?? null,
        };
  response.writeHead(200, {
    'content-type': 'application/json',
    'set-cookie': 'session=cookie-secret-value-123; Path=/; HttpOnly',
    'x-request-id': 'request-1',
  });
  response.end(JSON.stringify(payload));
}

/** Reads a response body and returns the text of each chunk as it arrived. */
export async function readTextChunks(response: Response): Promise<string[]> {
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  for await (const chunk of response.body!) chunks.push(decoder.decode(chunk, { stream: true }));
  return chunks;
}

/** Creates a temporary folder under `os.tmpdir()` and returns it with a function removing it. */
export async function createTemporaryFolder(): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'switchyard-cassette-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}
