/**
 * The floor for bench/gateway.ts: the least a Node proxy does — Node's HTTP server, the
 * request body read and parsed as JSON, the same request forwarded to the mock upstream with undici
 * on a keep-alive pool, a whole reply parsed and serialized again, a stream piped through as it
 * arrives. No translation, routing, keys, metrics or logs: what any gateway in Node pays before
 * doing its job. Prints its URL; answers `cpu` on stdin with its CPU time in µs.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';

const upstream = process.argv[2]!;
const pool = new Agent({ connections: 256, keepAliveTimeout: 60_000 });

const server = createServer((incoming, outgoing) => {
  const chunks: Buffer[] = [];
  incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
  incoming.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { stream?: boolean };
    request(`${upstream}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer upstream-key' },
      body: JSON.stringify(body),
      dispatcher: pool,
    }).then(
      async (response) => {
        if (body.stream !== true) {
          const text = JSON.stringify(JSON.parse(await response.body.text()));
          outgoing.writeHead(response.statusCode, { 'content-type': 'application/json' });
          outgoing.end(text);
          return;
        }
        outgoing.writeHead(response.statusCode, { 'content-type': 'text/event-stream' });
        for await (const chunk of response.body) outgoing.write(chunk);
        outgoing.end();
      },
      () => {
        outgoing.writeHead(502);
        outgoing.end();
      },
    );
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.stdin.setEncoding('utf8');
process.stdin.on('data', (line: string) => {
  if (line.trim() === 'cpu') {
    const usage = process.cpuUsage();
    process.stdout.write(`cpu ${usage.user + usage.system}\n`);
  }
});
process.stdin.on('end', () => process.exit(0));
