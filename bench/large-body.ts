/**
 * Large request bodies through the gateway: how long one 18–32 MiB body blocks the gateway's event
 * loop (every other client's stream waits that long) and how long its call takes. The emulator
 * serves every upstream from a child process (its own parse of the forwarded body is not counted);
 * the gateway runs in this process on 127.0.0.1, each inbound protocol (OpenAI Chat, Responses,
 * Anthropic Messages, Gemini) routed to the upstream of its own protocol, or of `UPSTREAM` when set
 * (`anthropic`, `openai`, `responses`, `gemini`). Four bodies per protocol, each about `SIZE_MIB`
 * (default 30) MiB: a long transcript of many messages, one huge text, many tool results, one
 * base64 image. Per body: the longest event-loop block (`monitorEventLoopDelay`, max), the worst
 * latency of a small Chat call due every 20 ms during it, the main thread's CPU time, every
 * stretch of 50 ms or more the loop could not run a timer, the call's total time and its status.
 *
 * Run: `node bench/large-body.ts` (`PROTOCOLS=chat,gemini`, `PAYLOADS=text,image`, `RUNS=2`,
 * `SIZE_MIB=18`, `UPSTREAM=chat` narrow or change it; `WINDOWS=none` routes to models the catalog does
 * not know, so no context window refuses a long text and every body is forwarded). Profile one body:
 * `PROTOCOLS=chat PAYLOADS=transcript node --cpu-prof --cpu-prof-dir=/tmp/prof bench/large-body.ts`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { silentLogger } from '../src/core/logger.ts';
import { createGateway } from '../src/gateway/server.ts';
import { basePathOf } from '../src/providers/common/provider-table.ts';
import { startEmulator } from '../src/testing/emulator/index.ts';

const mib = 1024 * 1024;
const root = join(dirname(import.meta.filename), '..');

type Protocol = 'chat' | 'responses' | 'anthropic' | 'gemini';
type Payload = 'transcript' | 'text' | 'tools' | 'image';

/** The model alias each inbound protocol names (routed to the upstream of its own protocol by default). */
const aliases: Record<Protocol, string> = {
  chat: 'up-chat',
  responses: 'up-responses',
  anthropic: 'up-anthropic',
  gemini: 'up-gemini',
};

/**
 * This repository's own docs and sources (3.5 MB of English and TypeScript, a few non-ASCII
 * characters): text with a real vocabulary, which a tokenizer's caches do not make cheap.
 */
const corpus = ['docs', 'src']
  .flatMap((folder) =>
    readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
      .filter((name) => /\.(md|ts)$/.test(name) && !name.includes('generated'))
      .sort()
      .map((name) => readFileSync(join(root, folder, name), 'utf8')),
  )
  .join('\n');

/** About `bytes` of the corpus from a place picked by `seed` (wrapping round), cut at a space. */
function prose(bytes: number, seed: number): string {
  let start = (seed * 2654435761) % corpus.length;
  start = corpus.indexOf(' ', start) + 1;
  let text = '';
  while (text.length < bytes) {
    text += corpus.slice(start, start + bytes - text.length);
    start = 0;
  }
  return text;
}

/** Pseudo-random bytes behind a PNG signature, base64 (incompressible, as a real photo is). */
function pngBase64(bytes: number): string {
  const data = Buffer.alloc(bytes);
  let state = 7;
  for (let index = 0; index < bytes; index += 4) {
    state = (state * 1103515245 + 12345) >>> 0;
    data.writeUInt32LE(state, Math.min(index, bytes - 4));
  }
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(data);
  return data.toString('base64');
}

interface Shape {
  /** A text message of `role` ('user' or 'assistant'). */
  text(role: 'user' | 'assistant', text: string): unknown[];
  /** An assistant call to `name` and the user's result for it. */
  toolPair(id: string, name: string, result: string): unknown[];
  image(data: string): unknown[];
  body(items: unknown[]): Record<string, unknown>;
  path: string;
}

const tool = {
  name: 'read_file',
  description: 'Reads a file',
  schema: { type: 'object', properties: { path: { type: 'string' } } },
};

const shapes: Record<Protocol, Shape> = {
  chat: {
    path: '/v1/chat/completions',
    text: (role, text) => [{ role, content: text }],
    toolPair: (id, name, result) => [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name, arguments: '{"path":"a.ts"}' } }],
      },
      { role: 'tool', tool_call_id: id, content: result },
    ],
    image: (data) => [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } },
        ],
      },
    ],
    body: (messages) => ({
      model: aliases.chat,
      max_tokens: 64,
      messages,
      tools: [
        {
          type: 'function',
          function: { name: tool.name, description: tool.description, parameters: tool.schema },
        },
      ],
    }),
  },
  responses: {
    path: '/v1/responses',
    text: (role, text) => [
      role === 'user'
        ? { role, content: text }
        : { type: 'message', role, content: [{ type: 'output_text', text, annotations: [] }] },
    ],
    toolPair: (id, name, result) => [
      { type: 'function_call', call_id: id, name, arguments: '{"path":"a.ts"}' },
      { type: 'function_call_output', call_id: id, output: result },
    ],
    image: (data) => [
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'What is in this picture?' },
          { type: 'input_image', image_url: `data:image/png;base64,${data}` },
        ],
      },
    ],
    body: (input) => ({
      model: aliases.responses,
      max_output_tokens: 64,
      store: false,
      input,
      tools: [{ type: 'function', name: tool.name, description: tool.description, parameters: tool.schema }],
    }),
  },
  anthropic: {
    path: '/v1/messages',
    text: (role, text) => [{ role, content: text }],
    toolPair: (id, name, result) => [
      { role: 'assistant', content: [{ type: 'tool_use', id, name, input: { path: 'a.ts' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result }] },
    ],
    image: (data) => [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
        ],
      },
    ],
    body: (messages) => ({
      model: aliases.anthropic,
      max_tokens: 64,
      messages,
      tools: [{ name: tool.name, description: tool.description, input_schema: tool.schema }],
    }),
  },
  gemini: {
    path: `/v1beta/models/${aliases.gemini}:generateContent`,
    text: (role, text) => [{ role: role === 'user' ? 'user' : 'model', parts: [{ text }] }],
    toolPair: (_id, name, result) => [
      { role: 'model', parts: [{ functionCall: { name, args: { path: 'a.ts' } } }] },
      { role: 'user', parts: [{ functionResponse: { name, response: { content: result } } }] },
    ],
    image: (data) => [
      {
        role: 'user',
        parts: [{ text: 'What is in this picture?' }, { inlineData: { mimeType: 'image/png', data } }],
      },
    ],
    body: (contents) => ({
      contents,
      generationConfig: { maxOutputTokens: 64 },
      tools: [
        {
          functionDeclarations: [{ name: tool.name, description: tool.description, parameters: tool.schema }],
        },
      ],
    }),
  },
};

/** The items of `payload`, about `bytes` in all, ending with a user turn. */
function itemsOf(shape: Shape, payload: Payload, bytes: number): unknown[] {
  switch (payload) {
    case 'transcript': {
      // Messages of ~1.5 KB: a long agent session of short turns.
      const count = Math.floor(bytes / 1600);
      const items: unknown[] = [];
      for (let index = 0; index < count; index++)
        items.push(...shape.text(index % 2 === 0 ? 'user' : 'assistant', prose(1500, index)));
      if (count % 2 === 0) items.push(...shape.text('user', 'Go on.'));
      return items;
    }
    case 'text':
      return shape.text('user', prose(bytes, 1));
    case 'tools': {
      // Results of ~16 KB: an agent that read many files.
      const count = Math.floor(bytes / 16_500);
      const items: unknown[] = [...shape.text('user', 'Read the repository.')];
      for (let index = 0; index < count; index++)
        items.push(...shape.toolPair(`call_${index}`, tool.name, prose(16_000, index)));
      return items;
    }
    case 'image':
      return shape.image(pngBase64(Math.floor((bytes * 3) / 4)));
  }
}

/** The model of each upstream protocol: a catalogued one (its context window checked) or one the catalog does not know. */
const upstreamModels = (unwindowed: boolean): Record<Protocol, string> => ({
  anthropic: unwindowed ? 'anthropic:bench-large' : 'anthropic:claude-sonnet-4-5',
  chat: unwindowed ? 'openai:bench-large' : 'openai:gpt-5-mini',
  responses: unwindowed ? 'responses:bench-large' : 'responses:gpt-5-mini',
  gemini: unwindowed ? 'gemini:bench-large' : 'gemini:gemini-2.5-flash',
});

/** Each inbound protocol's alias routed to its own protocol's upstream, or every alias to `upstream`'s. */
function modelsOf(
  upstream: Protocol | undefined,
  unwindowed: boolean,
): Record<string, { aliases: string[] }> {
  const models = upstreamModels(unwindowed);
  const entries = (Object.keys(aliases) as Protocol[]).map((protocol) => [
    models[protocol],
    { aliases: upstream === undefined ? [aliases[protocol]] : [] },
  ]);
  const table: Record<string, { aliases: string[] }> = Object.fromEntries(entries);
  if (upstream !== undefined) table[models[upstream]] = { aliases: Object.values(aliases) };
  return table;
}

interface Result {
  protocol: Protocol;
  payload: Payload;
  mib: number;
  status: number;
  totalMs: number;
  blockMs: number;
  probeMs: number;
  cpuMs: number;
  blocks: Block[];
}

/** One stretch in which the event loop ran no timer: its wall time and the main thread's CPU time in it. */
interface Block {
  wallMs: number;
  cpuMs: number;
}

const threadCpuMs = () => {
  const used = process.threadCpuUsage();
  return (used.user + used.system) / 1000;
};

/**
 * Records every stretch of at least 50 ms (wall or main-thread CPU) in which a 2 ms timer could not
 * run, until `stop`. The CPU time is what the gateway's code held the loop for; on a busy machine the
 * wall time also counts the time the thread waited for a core.
 */
function watchBlocks(): { stop(): Block[] } {
  const blocks: Block[] = [];
  let lastWall = performance.now();
  let lastCpu = threadCpuMs();
  const timer = setInterval(() => {
    const wall = performance.now();
    const cpu = threadCpuMs();
    const block = { wallMs: wall - lastWall - 2, cpuMs: cpu - lastCpu };
    if (block.wallMs >= 50 || block.cpuMs >= 50) blocks.push(block);
    lastWall = wall;
    lastCpu = cpu;
  }, 2);
  return {
    stop() {
      clearInterval(timer);
      return blocks;
    },
  };
}

async function startEmulatorChild(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [import.meta.filename, '--emulator'], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const line = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout! }).once('line', resolve),
  );
  return { url: line.trim(), child };
}

async function main(): Promise<void> {
  const sizeMiB = Number(process.env.SIZE_MIB ?? 30);
  const runs = Number(process.env.RUNS ?? 1);
  const protocols = (process.env.PROTOCOLS?.split(',') ?? Object.keys(shapes)) as Protocol[];
  const payloads = (process.env.PAYLOADS?.split(',') ?? [
    'transcript',
    'text',
    'tools',
    'image',
  ]) as Payload[];
  const upstream = process.env.UPSTREAM as Protocol | undefined;
  const { url: emulatorUrl, child } = await startEmulatorChild();
  const common = { max_retries: 0, api_key: 'upstream-key' };
  const gateway = createGateway({
    logger: silentLogger,
    config: {
      builtins: false,
      adapters: {
        anthropic: {
          type: 'anthropic',
          base_url: `${emulatorUrl}${basePathOf('anthropic') ?? ''}`,
          ...common,
        },
        openai: { type: 'openai', base_url: `${emulatorUrl}${basePathOf('openai') ?? ''}`, ...common },
        responses: {
          type: 'openai-responses',
          base_url: `${emulatorUrl}${basePathOf('openai') ?? ''}`,
          ...common,
        },
        gemini: { type: 'gemini', base_url: `${emulatorUrl}${basePathOf('gemini') ?? ''}`, ...common },
      },
      models: modelsOf(upstream, process.env.WINDOWS === 'none'),
      gateway: { access_log: false },
    },
  });
  const server = await gateway.listen({ host: '127.0.0.1', port: 0 });
  const agent = new Agent({ connections: 8, bodyTimeout: 0, headersTimeout: 0 });
  const post = async (path: string, body: Buffer | string) => {
    const response = await request(`${server.url}${path}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k', 'x-api-key': 'k' },
      dispatcher: agent,
    });
    const text = await response.body.text();
    return { status: response.statusCode, text };
  };
  const small = JSON.stringify({
    model: aliases.chat,
    max_tokens: 8,
    messages: [{ role: 'user', content: 'Hi' }],
  });
  for (let index = 0; index < 20; index++) await post('/v1/chat/completions', small);

  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const results: Result[] = [];
  for (const protocol of protocols)
    for (const payload of payloads) {
      const shape = shapes[protocol];
      const body = Buffer.from(JSON.stringify(shape.body(itemsOf(shape, payload, sizeMiB * mib))));
      for (let run = 0; run <= runs; run++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        histogram.reset();
        let probeMs = 0;
        let probing = true;
        const probe = (async () => {
          // Latency from when the probe was due: a call due during a block waits for its end.
          while (probing) {
            const due = performance.now() + 20;
            await new Promise((resolve) => setTimeout(resolve, 20));
            await post('/v1/chat/completions', small);
            probeMs = Math.max(probeMs, performance.now() - due);
          }
        })();
        const blocks = watchBlocks();
        const cpu = process.threadCpuUsage();
        const started = performance.now();
        const reply = await post(shape.path, body);
        const totalMs = performance.now() - started;
        const used = process.threadCpuUsage(cpu);
        probing = false;
        await probe;
        const blockList = blocks.stop();
        if (reply.status !== 200 && run === runs) console.log(`  ${reply.text.slice(0, 160)}…`);
        // Run 0 warms the code paths up; the runs after it are reported.
        if (run === 0 && runs > 0) continue;
        results.push({
          protocol,
          payload,
          mib: body.byteLength / mib,
          status: reply.status,
          totalMs,
          blockMs: histogram.max / 1e6,
          probeMs,
          cpuMs: (used.user + used.system) / 1000,
          blocks: blockList,
        });
        const last = results.at(-1)!;
        console.log(
          `${protocol.padEnd(9)} ${payload.padEnd(10)} ${last.mib.toFixed(1).padStart(5)} MiB  status ${last.status}  ` +
            `total ${last.totalMs.toFixed(0).padStart(5)} ms  longest block ${last.blockMs.toFixed(0).padStart(5)} ms  ` +
            `probe worst ${last.probeMs.toFixed(0).padStart(5)} ms  main-thread cpu ${last.cpuMs.toFixed(0).padStart(5)} ms  ` +
            `blocks ≥ 50 ms (wall/cpu): ${last.blocks.map((block) => `${block.wallMs.toFixed(0)}/${block.cpuMs.toFixed(0)}`).join(', ') || 'none'}`,
        );
      }
    }
  histogram.disable();
  const worst = results.reduce((max, result) => Math.max(max, result.blockMs), 0);
  const worstCpu = results.reduce(
    (max, result) => Math.max(max, ...result.blocks.map((block) => block.cpuMs)),
    0,
  );
  console.log(
    `worst block over ${results.length} calls: ${worst.toFixed(0)} ms wall, ${worstCpu.toFixed(0)} ms main-thread CPU`,
  );
  await agent.close();
  await server.close(0);
  await gateway.switchyard.close();
  child.disconnect();
}

/** The emulator's child process: serves until this process disconnects. */
async function serveEmulator(): Promise<void> {
  const emulator = await startEmulator({ host: '127.0.0.1' });
  emulator.setDefault({
    type: 'scripted',
    content: [{ type: 'text', text: 'Seen.' }],
    usage: { input: 100, output: 2 },
  });
  process.stdout.write(`${emulator.url}\n`);
  process.on('disconnect', () => void emulator.close().then(() => process.exit(0)));
}

await (process.argv[2] === '--emulator' ? serveEmulator() : main());
