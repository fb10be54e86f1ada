/**
 * What the front door adds to a real streamed call, counted rather than timed (issue #20): per call
 * of a 10-event streamed reply from the loopback upstream (`server.ts`), the promises, timers and
 * immediates created (`async_hooks` init counts) and the bytes allocated (growth of the used heap
 * across a call, calls with a GC in them left out), for the adapter alone (as the front door's
 * registry creates it) and for the front door. Counts do not move with the machine's load, unlike
 * CPU time on a shared machine: use them to A/B a change (`--tree=` another checkout), and
 * `fixed-cost.ts` for what the counts cost.
 *
 *     node bench/frontdoor-counts.ts                          # every protocol, this checkout
 *     node bench/frontdoor-counts.ts --protocol=openai --tree=/path/to/other/checkout
 */
import { createHook } from 'node:async_hooks';
import { getHeapStatistics } from 'node:v8';
import { contenderOf, flag, startFixedCostUpstream } from './fixed-cost-clients.ts';
import { createPayload } from './payloads.ts';
import { models, type Protocol, protocols, providerTypeOf } from './payloads.ts';

const calls = Number(process.env.COUNT_CALLS ?? 300);
const warmup = Number(process.env.COUNT_WARMUP ?? 500);
const tree = flag('tree')?.[0] ?? new URL('..', import.meta.url).pathname.replace(/\/$/, '');

/** The async resources created, by type, while the hook is enabled (only around the counted calls). */
const created = new Map<string, number>();
const hook = createHook({
  init(_id, type) {
    created.set(type, (created.get(type) ?? 0) + 1);
  },
});

type Run = () => Promise<string>;

/** The adapter (from the same registry code the front door uses) and the front door, for `protocol`. */
async function clientsOf(
  protocol: Protocol,
  root: string,
): Promise<Record<'raw' | 'adapter' | 'front door', Run>> {
  const { createProviderTypeTable } = await import(`${tree}/src/registry/provider-type-table.ts`);
  const { createRegistry } = await import(`${tree}/src/registry/registry.ts`);
  const { parseConfig } = await import(`${tree}/src/registry/config.ts`);
  const { createSwitchyard } = await import(`${tree}/src/switchyard.ts`);
  const type = providerTypeOf[protocol];
  const definition = createProviderTypeTable().get(type)!;
  const logger = { warn() {} };
  const config = {
    builtins: false,
    adapters: {
      [type]: { type, api_key: 'bench-key', base_url: root + (definition.basePath ?? ''), max_retries: 0 },
    },
  };
  const transcript = [
    { kind: 'user' as const, parts: [{ type: 'text' as const, text: 'Write a long answer.' }] },
  ];
  const registry = createRegistry({
    config: parseConfig(config),
    providerTypes: createProviderTypeTable(),
    env: {},
    logger,
  });
  await registry.load(type);
  const adapter = registry.adapter(type);
  const direct = { model: models[protocol], transcript, maxOutputTokens: 8192 };
  const sy = createSwitchyard({ logger, config });
  const routed = { model: `${type}:${models[protocol]}`, transcript, maxOutputTokens: 8192 };
  const payload = createPayload(protocol, 'text', 10);
  const raw = await contenderOf(protocol, 'raw').prepare({
    protocol,
    scenario: 'text',
    delivery: 'bulk',
    root,
    payload,
  });
  return {
    raw: async () => (await raw.run()).text ?? '',
    adapter: async () => {
      const stream = adapter.stream(direct);
      for await (const _event of stream);
      const response = await stream.result();
      return response.content.map((part: { type: string; text?: string }) => part.text ?? '').join('');
    },
    'front door': async () => {
      const turn = sy.stream(routed);
      for await (const _event of turn);
      return (await turn).text;
    },
  };
}

/**
 * Per call: the median bytes allocated (hook off: promise hooks change what V8 allocates), then
 * the resources created by type (hook on).
 */
async function count(run: Run): Promise<{ resources: Map<string, number>; bytes: number }> {
  for (let index = 0; index < warmup; index++) await run();
  const grown: number[] = [];
  for (let index = 0; index < calls; index++) {
    const before = getHeapStatistics().used_heap_size;
    await run();
    const after = getHeapStatistics().used_heap_size;
    if (after > before) grown.push(after - before);
  }
  grown.sort((left, right) => left - right);
  created.clear();
  hook.enable();
  for (let index = 0; index < calls; index++) await run();
  hook.disable();
  const resources = new Map([...created].map(([type, total]) => [type, total / calls]));
  return { resources, bytes: grown[grown.length >> 1] ?? Number.NaN };
}

const upstream = await startFixedCostUpstream(10);
console.log(`per call of a 10-event streamed reply (${calls} calls after ${warmup}), checkout ${tree}`);
console.log(
  `${'protocol'.padEnd(18)}${'client'.padEnd(12)}${'promises'.padStart(9)}${'timers'.padStart(8)}${'immediates'.padStart(12)}${'KB allocated'.padStart(14)}`,
);
for (const protocol of (flag('protocol') ?? protocols) as Protocol[]) {
  const clients = await clientsOf(protocol, upstream.root);
  for (const [name, run] of Object.entries(clients)) {
    const { resources, bytes } = await count(run);
    const of = (type: string) => (resources.get(type) ?? 0).toFixed(1);
    console.log(
      `${providerTypeOf[protocol].padEnd(18)}${name.padEnd(12)}${of('PROMISE').padStart(9)}${of('Timeout').padStart(8)}${of('Immediate').padStart(12)}${(bytes / 1024).toFixed(1).padStart(14)}`,
    );
  }
}
upstream.stop();
process.exit(0);
