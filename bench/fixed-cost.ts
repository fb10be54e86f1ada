/**
 * Per-call fixed cost (issue #20): CPU per call of a short streamed reply (10 text deltas), per
 * protocol, for three clients of the same loopback upstream (`server.ts`, a child process):
 *
 * - raw: undici `request` on a keep-alive `Agent` + `TextDecoder` + `eventsource-parser` + one
 *   `JSON.parse` per event, text joined once (the same per-event work as contenders/sse-parse.ts,
 *   without fetch's web-stream layers: Switchyard's transport dispatches on undici directly too);
 * - adapter: the protocol's Switchyard adapter, `adapter.stream(request)` iterated, then `result()`;
 * - front door: `createSwitchyard` → `sy.stream({ model: 'provider:name', … })` iterated, then `result()`.
 *
 * Each client runs in its own process (its own heap and JIT), driven over IPC in interleaved rounds,
 * so machine noise hits all alike. Reported: raw µs/call, the adapter's µs/call above raw, and the
 * front door's µs/call above the adapter (process CPU time, `process.cpuUsage`, median of the rounds).
 *
 *     node bench/fixed-cost.ts                      # npm run bench:fixed-cost
 *     FIXED_CALLS=2000 FIXED_ROUNDS=9 node bench/fixed-cost.ts --protocol=openai,anthropic
 *     FIXED_PROFILE=/tmp/prof node bench/fixed-cost.ts --protocol=openai --only=frontdoor
 *       (each worker writes a .cpuprofile there; read it with `node bench/profile.ts FILE 30 /src/`)
 *     FIXED_BEFORE=/path/to/other/checkout node bench/fixed-cost.ts
 *       (that checkout's adapter and front door run in the same rounds: before/after under the same load)
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createParser } from 'eventsource-parser';
import { Agent, request as undiciRequest } from 'undici';
import { requestBody, requestHeaders } from './contenders/request.ts';
import { createContender as adapterContender } from './contenders/switchyard.ts';
import { apiPath, type Contender, type Runner, type Target } from './contenders/types.ts';
import { Collector } from './contenders/wire.ts';
import { providerTypeOf, createPayload, models, type Protocol, protocols } from './payloads.ts';

type Client = 'raw' | 'adapter' | 'frontdoor';
const clients: readonly Client[] = ['raw', 'adapter', 'frontdoor'];
const events = 10;
const calls = Number(process.env.FIXED_CALLS ?? 1000);
const rounds = Number(process.env.FIXED_ROUNDS ?? 7);
const warmup = Number(process.env.FIXED_WARMUP ?? 1500);

function flag(name: string): string[] | undefined {
  const value = process.argv.find((argument) => argument.startsWith(`--${name}=`));
  return value?.slice(name.length + 3).split(',');
}

/** The floor: undici `request` + eventsource-parser + `JSON.parse` per event. */
function rawContender(protocol: Protocol): Contender {
  return {
    id: 'sse-parse',
    label: 'undici + eventsource-parser',
    async prepare(target: Target): Promise<Runner> {
      const dispatcher = new Agent();
      const url = target.root + apiPath(protocol, models[protocol]);
      const headers = requestHeaders(protocol);
      const body = requestBody(protocol, target.scenario);
      return {
        async run() {
          const response = await undiciRequest(url, { method: 'POST', headers, body, dispatcher });
          if (response.statusCode !== 200) throw new Error(`raw: HTTP ${response.statusCode}`);
          const collector = new Collector(protocol);
          const parser = createParser({
            onEvent(message) {
              if (message.data !== '[DONE]') collector.add(JSON.parse(message.data));
            },
          });
          const decoder = new TextDecoder();
          for await (const chunk of response.body)
            parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
          parser.feed(decoder.decode());
          return collector.finish();
        },
        close: () => dispatcher.close(),
      };
    },
  };
}

/** The front-door contender: `createSwitchyard` with one adapter pointed at the bench server. */
function frontDoorContender(protocol: Protocol): Contender {
  return {
    id: 'switchyard',
    label: 'front door',
    async prepare(target: Target): Promise<Runner> {
      const { createProviderTypeTable } = await import('../src/registry/provider-type-table.ts');
      const { createSwitchyard } = await import('../src/switchyard.ts');
      const type = providerTypeOf[protocol];
      const definition = createProviderTypeTable().get(type)!;
      const sy = createSwitchyard({
        logger: { warn() {} },
        config: {
          builtins: false,
          adapters: {
            [type]: {
              type,
              api_key: 'bench-key',
              base_url: target.root + (definition.basePath ?? ''),
              max_retries: 0,
            },
          },
        },
      });
      const request = {
        model: `${type}:${models[protocol]}`,
        transcript: [
          { kind: 'user' as const, parts: [{ type: 'text' as const, text: 'Write a long answer.' }] },
        ],
        maxOutputTokens: 8192,
      };
      return {
        async run() {
          const turn = sy.stream(request);
          let count = 0;
          for await (const _event of turn) count++;
          const reply = await turn;
          return { text: reply.text, toolInput: undefined, events: count };
        },
        close: () => sy.close(),
      };
    },
  };
}

/** Worker side: prepares one client, then answers `{ calls }` with the CPU µs per call. */
async function worker(protocol: Protocol, client: Client, root: string): Promise<void> {
  const payload = createPayload(protocol, 'text', events);
  const contender =
    client === 'raw'
      ? rawContender(protocol)
      : client === 'adapter'
        ? adapterContender(protocol)
        : frontDoorContender(protocol);
  const runner = await contender.prepare({ protocol, scenario: 'text', delivery: 'bulk', root, payload });
  const send = (message: object) => process.send!(message);
  process.on('message', (message: { calls?: number }) => {
    void (async () => {
      if (message.calls === undefined) {
        await runner.close();
        process.exit(0);
      }
      const started = process.cpuUsage();
      let outcome;
      for (let index = 0; index < message.calls; index++) outcome = await runner.run();
      const used = process.cpuUsage(started);
      if (outcome!.text !== payload.expected.text) {
        send({ error: `${client}/${protocol}: wrong text ${JSON.stringify(outcome!.text)}` });
        return;
      }
      send({ cpuPerCall: (used.user + used.system) / message.calls });
    })().catch((error: unknown) => send({ error: String((error as Error)?.stack ?? error) }));
  });
  send({ ready: true });
}

interface Worker {
  protocol: Protocol;
  client: Client;
  /** `after`: this tree; `before`: the tree of `FIXED_BEFORE`. */
  tree: 'before' | 'after';
  child: ChildProcess;
  samples: number[];
}

function ask(worker: Worker, calls: number): Promise<number> {
  return new Promise((resolve, reject) => {
    worker.child.once('message', (reply: { cpuPerCall?: number; error?: string }) =>
      reply.error === undefined ? resolve(reply.cpuPerCall!) : reject(new Error(reply.error)),
    );
    worker.child.send({ calls });
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const only = (flag('only') ?? clients) as Client[];
  const chosen = (flag('protocol') ?? protocols) as Protocol[];
  const here = fileURLToPath(import.meta.url);
  const upstream = spawn(
    process.execPath,
    [fileURLToPath(new URL('./server.ts', import.meta.url)), String(events)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve) =>
    createInterface({ input: upstream.stdout! }).once('line', resolve),
  );
  const root = `${(JSON.parse(line) as { url: string }).url}/bulk/text`;
  const profile = process.env.FIXED_PROFILE;
  // FIXED_BEFORE=<another checkout>: its adapter and front door run in the same rounds (paired).
  const before = process.env.FIXED_BEFORE;
  const trees = before === undefined ? (['after'] as const) : (['before', 'after'] as const);
  const workers: Worker[] = [];
  for (const protocol of chosen)
    for (const client of only)
      for (const tree of client === 'raw' ? (['after'] as const) : trees) {
        const execArgv = ['--expose-gc'];
        if (profile !== undefined) execArgv.push('--cpu-prof', `--cpu-prof-dir=${profile}`);
        const script = tree === 'after' ? here : `${before}/bench/fixed-cost.ts`;
        const child = fork(script, [`--worker=${protocol},${client},${root}`], { execArgv });
        const worker = { protocol, client, tree, child, samples: [] };
        await new Promise<void>((resolve, reject) =>
          child.once('message', (message: { ready?: boolean; error?: string }) =>
            message.ready === true ? resolve() : reject(new Error(message.error)),
          ),
        );
        await ask(worker, warmup);
        workers.push(worker);
      }
  for (let round = 0; round < rounds; round++) {
    const order = workers.map((_, index) => workers[(index + round) % workers.length]!);
    for (const worker of order) worker.samples.push(await ask(worker, calls));
  }
  for (const worker of workers) worker.child.send({});
  upstream.stdin!.end();
  const find = (protocol: Protocol, client: Client, tree: Worker['tree']) =>
    workers.find((entry) => entry.protocol === protocol && entry.client === client && entry.tree === tree);
  const value = (worker: Worker | undefined) => (worker === undefined ? undefined : median(worker.samples));
  /** The median of the per-round differences (paired: a round's load drift hits both). */
  const difference = (high: Worker | undefined, low: Worker | undefined) =>
    high === undefined || low === undefined
      ? undefined
      : median(high.samples.map((sample, index) => sample - low.samples[index]!));
  const format = (micros: number | undefined) => (micros === undefined ? '—' : micros.toFixed(1)).padStart(9);
  console.log(
    `CPU µs per call, ${events}-event streamed reply, median of ${rounds} rounds × ${calls} calls (warm-up ${warmup}); differences: median of the per-round differences`,
  );
  console.log(
    `${'protocol'.padEnd(27)}${'raw'.padStart(9)}${'adapter'.padStart(9)}${'front'.padStart(9)}${'adapter−raw'.padStart(13)}${'front−adapter'.padStart(15)}`,
  );
  for (const protocol of chosen)
    for (const tree of trees) {
      const raw = find(protocol, 'raw', 'after');
      const adapter = find(protocol, 'adapter', tree);
      const front = find(protocol, 'frontdoor', tree);
      const label = before === undefined ? providerTypeOf[protocol] : `${providerTypeOf[protocol]} (${tree})`;
      console.log(
        `${label.padEnd(27)}${format(value(raw))}${format(value(adapter))}${format(value(front))}${format(difference(adapter, raw)).padStart(13)}${format(difference(front, adapter)).padStart(15)}`,
      );
    }
}

const workerFlag = flag('worker');
if (workerFlag !== undefined) {
  const [protocol, client, ...rest] = workerFlag;
  await worker(protocol as Protocol, client as Client, rest.join(','));
} else {
  await main();
}
