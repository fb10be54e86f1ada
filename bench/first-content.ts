/**
 * Time to the first content of a burst: a loopback upstream answers every streamed call with one
 * write of 1,500 text events (~60 KB: a host that buffers, a replayed reply), which the adapter reads
 * at once. Printed per checkout: p50 of the time to the consumer's first text delta and to the end,
 * over `CALLS` calls after `WARM` uncounted ones, checkouts interleaved call by call. Compare a
 * checkout before `e9ac24c` (every event of a read decoded before the first reached the consumer)
 * with this one.
 *
 *     node bench/first-content.ts                                  # this checkout
 *     node bench/first-content.ts --tree=/path/to/other,/path/to/this
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { flag } from './fixed-cost-clients.ts';

const trees = flag('tree') ?? [new URL('..', import.meta.url).pathname.replace(/\/$/, '')];
const calls = Number(process.env.CALLS ?? 300);
const warm = Number(process.env.WARM ?? 100);
const events = 1500;

const textEvent = (text: string) => `data: ${JSON.stringify({ t: 'text', v: text })}\n\n`;
const burst =
  Array.from({ length: events }, (_, index) => textEvent(`w${index} `)).join('') +
  `data: ${JSON.stringify({ t: 'end', usage: { input: 1, output: events } })}\n\n`;
const server = createServer((_incoming, outgoing) => {
  outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
  outgoing.end(burst);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

interface Contender {
  tree: string;
  call(): Promise<[number, number]>;
  first: number[];
  end: number[];
}

const contenders: Contender[] = await Promise.all(
  trees.map(async (tree) => {
    const { createHttpAdapter } = (await import(
      `${tree}/src/providers/common/http-adapter.ts`
    )) as typeof import('../src/providers/common/http-adapter.ts');
    const { createTestDefinition } = (await import(
      `${tree}/src/providers/common/test-provider.ts`
    )) as typeof import('../src/providers/common/test-provider.ts');
    const { silentLogger } = (await import(
      `${tree}/src/core/logger.ts`
    )) as typeof import('../src/core/logger.ts');
    const adapter = createHttpAdapter(createTestDefinition(), {
      baseURL,
      apiKey: 'bench',
      logger: silentLogger,
    });
    const request = {
      model: 'test:model',
      transcript: [{ kind: 'user' as const, parts: [{ type: 'text' as const, text: 'hi' }] }],
      maxOutputTokens: 10,
    };
    return {
      tree,
      first: [],
      end: [],
      async call(): Promise<[number, number]> {
        const started = performance.now();
        let first = 0;
        for await (const event of adapter.stream(request))
          if (event.type === 'text-delta' && first === 0) first = performance.now() - started;
        return [first, performance.now() - started];
      },
    };
  }),
);

for (let index = 0; index < warm + calls; index++)
  for (const contender of contenders) {
    const [first, end] = await contender.call();
    if (index < warm) continue;
    contender.first.push(first);
    contender.end.push(end);
  }

const p50 = (values: number[]) => values.sort((left, right) => left - right)[values.length >> 1]!;
console.log(`${events} events in one read, ${calls} calls each (p50, ms)`);
for (const { tree, first, end } of contenders)
  console.log(`${tree}  first text ${p50(first).toFixed(3)}  end ${p50(end).toFixed(3)}`);
server.close();
