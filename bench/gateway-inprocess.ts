/**
 * The gateway's own cost per non-streamed call, without the process hops of bench/gateway.ts:
 * a mock OpenAI Chat upstream, the front door (`sy.complete`) and the gateway (`app.request`, then
 * over loopback HTTP with `listen`) in one process, sequential, p50 against calling the upstream
 * directly with undici. Run: `node bench/gateway-inprocess.ts` (CALLS overrides the count).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { silentLogger } from '../src/core/logger.ts';
import { createGateway } from '../src/gateway/server.ts';

const calls = Number(process.env.CALLS ?? 2000);
const reply = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4.1-mini',
  choices: [
    { index: 0, message: { role: 'assistant', content: 'word0 word1 word2' }, finish_reason: 'stop' },
  ],
  usage: { prompt_tokens: 12, completion_tokens: 10, total_tokens: 22 },
});
const upstream = createServer((incoming, outgoing) => {
  incoming.resume();
  incoming.on('end', () => {
    outgoing.writeHead(200, { 'content-type': 'application/json' });
    outgoing.end(reply);
  });
});
await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
const gateway = createGateway({
  logger: silentLogger,
  config: {
    builtins: false,
    adapters: { openai: { type: 'openai', base_url: `${upstreamUrl}/v1`, api_key: 'k', max_retries: 0 } },
    models: { 'openai:gpt-4.1-mini': { aliases: ['bench-model'] } },
    gateway: { access_log: false },
  },
});
const server = await gateway.listen({ host: '127.0.0.1', port: 0 });
const agent = new Agent({ connections: 4 });
const body = JSON.stringify({
  model: 'bench-model',
  messages: [{ role: 'user', content: 'Hello' }],
  max_tokens: 64,
});
const headers = { 'content-type': 'application/json' };

const contenders: Array<[string, () => Promise<unknown>]> = [
  [
    'direct (undici → upstream)',
    async () => {
      const response = await request(`${upstreamUrl}/v1/chat/completions`, {
        method: 'POST',
        body,
        headers,
        dispatcher: agent,
      });
      return response.body.text();
    },
  ],
  [
    'front door (sy.complete)',
    () =>
      gateway.switchyard.complete({
        model: 'bench-model',
        transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hello' }] }],
        maxOutputTokens: 64,
      }),
  ],
  [
    'gateway (app.request)',
    async () => {
      const response = await gateway.app.request('/v1/chat/completions', { method: 'POST', body, headers });
      return response.text();
    },
  ],
  [
    'gateway (HTTP on loopback)',
    async () => {
      const response = await request(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        body,
        headers,
        dispatcher: agent,
      });
      return response.body.text();
    },
  ],
];

const median = (values: number[]) => [...values].sort((left, right) => left - right)[values.length >> 1]!;
const timings = contenders.map((): number[] => []);
for (let round = 0; round < calls + 300; round++) {
  for (const [index, [, call]] of contenders.entries()) {
    const started = performance.now();
    await call();
    if (round >= 300) timings[index]!.push(performance.now() - started);
  }
}
console.log(`${calls} sequential non-streamed calls each, interleaved (after 300 warm-up rounds), p50:`);
const direct = median(timings[0]!);
for (const [index, [name]] of contenders.entries()) {
  const p50 = median(timings[index]!);
  console.log(
    `  ${name.padEnd(28)} ${p50.toFixed(3)} ms${index === 0 ? '' : `  (+${(p50 - direct).toFixed(3)} ms over direct)`}`,
  );
}
await server.close(0);
await gateway.switchyard.close();
await agent.close();
upstream.close();
