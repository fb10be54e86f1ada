/**
 * Streams the upstream holds open, through the gateway (issue #20): a mock OpenAI Chat upstream
 * answers every streamed call with its first chunk and then holds it, as a long generation does;
 * `N` clients (default 1,000) stream through the gateway (`gateway-server.ts`, in its own
 * process) at once. Printed: how many calls the upstream holds at once (each holds a pooled
 * connection), how many clients have their first byte, and the gateway's RSS then; after the
 * upstream finishes every call (in waves, as they arrive), how many outputs are whole and the
 * gateway's peak RSS. `--tree=` another checkout's gateway.
 *
 *     node bench/gateway-held-streams.ts            # N=1000
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { flag } from './fixed-cost-clients.ts';
import { chatBody, gatewayServerOf, here, peakRss, waitForLine } from './gateway-rig.ts';

const count = Number(process.env.N ?? 1000);
const tree = flag('tree')?.[0];
const script = tree === undefined ? `${here}/gateway-server.ts` : gatewayServerOf(tree);

const held: ServerResponse[] = [];
const chunk = (choice: object, usage?: object) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, ...choice }], ...(usage === undefined ? {} : { usage }) })}\n\n`;
const upstream = createServer((incoming, outgoing) => {
  incoming.resume();
  incoming.on('end', () => {
    outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
    outgoing.write(chunk({ delta: { role: 'assistant', content: 'held ' }, finish_reason: null }));
    held.push(outgoing);
  });
});
await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
const child = spawn(process.execPath, [script, upstreamUrl], { stdio: ['pipe', 'pipe', 'inherit'] });
const [, gateway] = await waitForLine(child, /(http:\/\/127\.0\.0\.1:\d+)\n/);
/** The gateway's resident memory now, MB (`peakRss` is its highest). */
const rss = () =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

const dispatcher = new Agent({ connections: 2 * count });
let firstBytes = 0;
const calls = Array.from({ length: count }, async () => {
  const response = await request(`${gateway}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: chatBody(true),
    dispatcher,
  });
  let text = '';
  for await (const piece of response.body) {
    if (text === '') firstBytes++;
    text += String(piece);
  }
  return text;
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// Until every call is held, or no more arrive for 2 s (the rest wait for a pooled connection).
for (let seen = -1, since = performance.now(); held.length < count && performance.now() - since < 2000;) {
  if (held.length !== seen) [seen, since] = [held.length, performance.now()];
  await sleep(50);
}
await sleep(300);
console.log(
  `${count} streams: ${held.length} held by the upstream at once, ${firstBytes} clients with their first byte; gateway RSS ${rss().toFixed(0)} MB`,
);
let finished = 0;
const finishing = Promise.all(calls).finally(() => (finished = 1));
// Each wave ends the calls held now; those that waited for a connection arrive after it.
while (finished === 0) {
  for (const outgoing of held.splice(0)) {
    outgoing.write(
      chunk(
        { delta: {}, finish_reason: 'stop' },
        { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      ),
    );
    outgoing.end('data: [DONE]\n\n');
  }
  await sleep(50);
}
const texts = await finishing;
console.log(
  `whole outputs ${texts.filter((text) => text.includes('held')).length}/${count}; gateway peak RSS ${peakRss(child.pid!).toFixed(0)} MB`,
);
child.stdin!.end();
upstream.close();
await dispatcher.close();
