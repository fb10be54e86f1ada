/** The bench's loopback SSE server, run as a child process so its CPU time is not the client's. */
// Why not the Switchyard emulator (src/testing/emulator): its writer always cuts the body at every
// event boundary and awaits each write, so it cannot send a 20,000-event body as one large write
// ("bulk"), nor group 1–4 events per write ("drip"); it also re-serializes every frame per request.
// This server precomputes the bytes once per protocol × scenario and only copies them out.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createPayload,
  type Delivery,
  dripGroups,
  type GeminiToolFormat,
  type Protocol,
  protocols,
  type Scenario,
  scenarios,
} from './payloads.ts';

interface Prepared {
  bulk: Buffer;
  drip: Buffer[];
}

const units = Number(process.argv[2] ?? 20_000);
const geminiToolFormat = (process.argv[3] ?? 'partial-args') as GeminiToolFormat;
const prepared = new Map<string, Prepared>();
for (const protocol of protocols) {
  for (const scenario of scenarios) {
    const payload = createPayload(protocol, scenario, units, geminiToolFormat);
    prepared.set(`${protocol}/${scenario}`, {
      bulk: Buffer.concat(payload.frames),
      drip: dripGroups(payload.frames),
    });
  }
}

/** The protocol of a request path, by its suffix (any base-URL prefix works). */
function protocolOf(path: string): Protocol | undefined {
  if (path.endsWith('/messages')) return 'anthropic';
  if (path.endsWith('/chat/completions')) return 'openai';
  if (path.endsWith('/responses')) return 'responses';
  if (path.endsWith(':streamGenerateContent')) return 'gemini';
  return undefined;
}

/** Optional pacing of drip writes (`BENCH_DRIP_GAP_US`), busy-waited: timers are too coarse. */
const dripGapNs = BigInt(Math.round(Number(process.env.BENCH_DRIP_GAP_US ?? 0) * 1000));

const interleave = process.env.BENCH_INTERLEAVE === '1';

function pause(nanoseconds: bigint): void {
  const until = process.hrtime.bigint() + nanoseconds;
  while (process.hrtime.bigint() < until) {
    // Busy-wait: this process's CPU is not measured.
  }
}

function write(response: ServerResponse, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    response.write(chunk, (error) => (error ? reject(error) : resolve()));
  });
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  for await (const _chunk of request) {
    // Drain the request body; its content does not change the answer.
  }
  const path = new URL(request.url ?? '/', 'http://bench.invalid').pathname;
  const [, delivery, scenario] = path.split('/') as [string, Delivery, Scenario];
  const protocol = protocolOf(path);
  const body = prepared.get(`${protocol}/${scenario}`);
  if (body === undefined || (delivery !== 'bulk' && delivery !== 'drip')) {
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: `bench server: no route for ${path}` } }));
    return;
  }
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
  });
  if (delivery === 'bulk') {
    response.end(body.bulk);
    return;
  }
  for (const group of body.drip) {
    await write(response, group);
    if (dripGapNs > 0n) pause(dripGapNs);
    if (interleave) await new Promise(setImmediate);
  }
  response.end();
}

const server = createServer({ noDelay: true, keepAliveTimeout: 60_000 }, (request, response) => {
  handle(request, response).catch(() => response.destroy());
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});
// The parent closes our stdin when it is done (or dies): exit then.
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
