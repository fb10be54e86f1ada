/**
 * The price of the default transport's socket setting (`socketOptions` in src/transport/dispatch.ts:
 * no read-ahead, so a paused body stays in the kernel), side by side with a 16 KiB read-ahead:
 * client CPU per event of a stream whose events arrive one at a time (as a provider sends tokens,
 * one every millisecond here), through `dispatchRequest` on two undici pools. With no read-ahead
 * Node stops and restarts reading the socket around every read (`readStop`/`readStart`: an epoll
 * change each, ~2 system calls per event, counted with `strace -f -c`); a read-ahead keeps the
 * socket reading while the consumer keeps up. Interleaved rounds in alternating order; the median
 * of the per-round ratios.
 * Run: `node bench/socket-reads.ts` (ROUNDS, EVENTS override the sizes).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Agent } from 'undici';
import { dispatchRequest, socketOptions } from '../src/transport/dispatch.ts';

const rounds = Number(process.env.ROUNDS ?? 8);
const events = Number(process.env.EVENTS ?? 500);

/** The upstream, in its own process: `events` SSE events per request, one every millisecond. */
const serverSource = `
const { createServer } = require('node:http');
const events = ${events};
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    let sent = 0;
    const timer = setInterval(() => {
      response.write('data: {"choices":[{"index":0,"delta":{"content":"token' + sent + ' "}}]}\\n\\n');
      if (++sent === events) {
        clearInterval(timer);
        response.end('data: [DONE]\\n\\n');
      }
    }, 1);
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
// Ends with its parent, whichever way the parent ends.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

const server = spawn(process.execPath, ['-e', serverSource], { stdio: ['pipe', 'pipe', 'inherit'] });
const started = await Promise.race([
  once(server.stdout!, 'data') as Promise<[Buffer]>,
  once(server, 'exit').then(() => {
    throw new Error('the upstream process ended before it listened');
  }),
]);
const url = `http://127.0.0.1:${started[0].toString().trim()}/`;

const contenders = [
  { name: `transport (${JSON.stringify(socketOptions)})`, agent: new Agent({ connect: socketOptions }) },
  { name: '16 KiB read-ahead', agent: new Agent({ connect: { highWaterMark: 16 * 1024 } as object }) },
];

/** Body chunks read per response, by contender (a read-ahead joins events into fewer chunks). */
const chunkCounts = contenders.map(() => [] as number[]);

/** CPU µs per event (the `[DONE]` one included) for one streamed response. */
async function cpuPerEvent(agent: Agent, counts: number[]): Promise<number> {
  const before = process.cpuUsage();
  const response = await dispatchRequest(agent, url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
    signal: new AbortController().signal,
    onSent: () => {},
  });
  const reader = response.body!.getReader();
  let chunks = 0;
  for (;;) {
    const { done } = await reader.read();
    if (done) break;
    chunks++;
  }
  const used = process.cpuUsage(before);
  counts.push(chunks);
  return (used.user + used.system) / (events + 1);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const results = contenders.map(() => [] as number[]);
try {
  // Uncounted responses first: connections open, code warm.
  for (let warm = 0; warm < 3; warm++)
    for (const contender of contenders) await cpuPerEvent(contender.agent, []);
  // Each round runs both, in alternating order (whichever runs second finds the process warmer).
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const index of order)
      results[index]!.push(await cpuPerEvent(contenders[index]!.agent, chunkCounts[index]!));
  }
} finally {
  for (const contender of contenders) await contender.agent.close();
  server.stdin!.end();
}
const ratios = results[1]!.map((value, round) => value / results[0]![round]!);

console.log(
  `client CPU µs per event, ${events} events a response, one every ms; median of ${rounds} interleaved rounds`,
);
for (const [index, contender] of contenders.entries())
  console.log(
    `${contender.name.padEnd(40)} ${median(results[index]!).toFixed(1)}   (median ${median(chunkCounts[index]!)} body chunks a response)   rounds ${results[index]!.map((value) => value.toFixed(0)).join(' ')}`,
  );
console.log(
  `16 KiB read-ahead / transport, per round: median ${median(ratios).toFixed(2)}, lower in ${ratios.filter((ratio) => ratio < 1).length} of ${rounds} rounds`,
);
