/**
 * `node bench/agent-loop.ts`: the agent loop's own CPU per turn, excluding model and tools.
 *
 * The model is an in-memory client replaying a prebuilt six-event tool-call turn (no parsing, no
 * I/O); the tool returns a string synchronously. The same stream replay and tool calls are timed
 * without the loop (the baseline) and subtracted, so what remains is the loop: request building,
 * event forwarding, validation, tool dispatch, transcript and usage bookkeeping.
 */
import { z } from 'zod';
import { createAgent, tool, type ModelClient, type ModelStream } from '../src/agent/index.ts';
import type { StreamEvent } from '../src/core/events.ts';
import type { RequestId, ToolCallId } from '../src/core/ids.ts';
import type { CanonicalResponse } from '../src/core/request.ts';

const turns = Number(process.env.AGENT_BENCH_TURNS ?? 50);
const batches = Number(process.env.AGENT_BENCH_BATCHES ?? 15);
const runsPerBatch = Number(process.env.AGENT_BENCH_RUNS ?? 40);
const goalMicros = 100;

function response(turn: number, last: boolean): CanonicalResponse {
  const id = `tu_${turn}` as ToolCallId;
  return {
    requestId: `req_${turn}` as RequestId,
    model: 'bench:model',
    provider: 'bench',
    content: last
      ? [{ type: 'text', text: 'done' }]
      : [{ type: 'tool-call', id, name: 'lookup', input: { q: `question ${turn}` } }],
    finishReason: last ? 'completed' : 'tool-call',
    usage: { input: 100, cacheRead: 0, cacheWrite: 0, output: 10, reasoning: 0 },
    latencyMs: 0,
  };
}

function eventsOf(reply: CanonicalResponse): StreamEvent[] {
  const part = reply.content[0]!;
  const body: StreamEvent[] =
    part.type === 'tool-call'
      ? [
          { type: 'tool-call-start', index: 0, id: part.id, name: part.name },
          { type: 'tool-call-delta', index: 0, id: part.id, delta: JSON.stringify(part.input) },
          { type: 'tool-call-end', index: 0, id: part.id, input: part.input },
        ]
      : [{ type: 'text-start', index: 0 }];
  return [
    { type: 'message-start', requestId: reply.requestId, model: reply.model, provider: reply.provider },
    ...body,
    { type: 'usage', usage: reply.usage },
    { type: 'finish', response: reply },
  ];
}

/** Prebuilt turns: the "model" costs one array walk per call. */
const script = Array.from({ length: turns }, (_, index) => {
  const reply = response(index, index === turns - 1);
  return { reply, events: eventsOf(reply) };
});

function replay(turn: { reply: CanonicalResponse; events: StreamEvent[] }): ModelStream {
  return {
    async *[Symbol.asyncIterator]() {
      for (const event of turn.events) yield event;
    },
    result: () => Promise.resolve(turn.reply),
  };
}

function createClient(): ModelClient {
  let next = 0;
  return { stream: () => replay(script[next++ % turns]!) };
}

const execute = ({ q }: { q: string }) => `answer to ${q}`;
const lookup = tool({ name: 'lookup', input: z.object({ q: z.string() }), execute });

async function loopRun(iterate: boolean): Promise<void> {
  const agent = createAgent({
    client: createClient(),
    model: 'bench:model',
    tools: [lookup],
    maxTurns: turns,
  });
  const run = agent.run('Answer the questions.');
  if (iterate) for await (const _event of run);
  const result = await run.result();
  if (result.outcome !== 'completed' || result.turns.length !== turns)
    throw new Error(`bad run: ${result.outcome}`);
}

async function baselineRun(): Promise<void> {
  const client = createClient();
  for (let turn = 0; turn < turns; turn++) {
    const stream = client.stream({ model: 'bench:model', transcript: [], maxOutputTokens: 1 });
    for await (const _event of stream);
    const reply = await stream.result();
    const part = reply.content[0]!;
    if (part.type === 'tool-call') execute(part.input as { q: string });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Median over batches of the main-thread CPU per turn (a batch is long enough for the CPU clock's resolution). */
async function time(run: () => Promise<void>): Promise<number> {
  const samples: number[] = [];
  for (let batch = 0; batch < batches; batch++) {
    const start = process.threadCpuUsage();
    for (let index = 0; index < runsPerBatch; index++) await run();
    const used = process.threadCpuUsage(start);
    samples.push((used.user + used.system) / (runsPerBatch * turns));
  }
  return median(samples);
}

for (let warmup = 0; warmup < 50; warmup++) {
  await loopRun(true);
  await loopRun(false);
  await baselineRun();
}
const baseline = await time(baselineRun);
const quiet = await time(() => loopRun(false));
const iterated = await time(() => loopRun(true));
const rows = [
  { case: 'model + tool only (baseline)', 'µs/turn': baseline },
  { case: 'loop, result() only', 'µs/turn': quiet, 'loop µs/turn': quiet - baseline },
  { case: 'loop, every event iterated', 'µs/turn': iterated, 'loop µs/turn': iterated - baseline },
];
console.log(
  `agent loop: ${turns} turns per run, median of ${batches} batches of ${runsPerBatch} runs, main-thread CPU (node ${process.version})`,
);
console.table(
  rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => [
        key,
        typeof value === 'number' ? Number(value.toFixed(1)) : value,
      ]),
    ),
  ),
);
const worst = Math.max(quiet, iterated) - baseline;
console.log(
  `loop overhead per turn: ${worst.toFixed(1)} µs (goal < ${goalMicros} µs) — ${worst < goalMicros ? 'PASS' : 'FAIL'}`,
);
if (worst >= goalMicros) process.exitCode = 1;
