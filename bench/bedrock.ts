/**
 * Bedrock ConverseStream CPU: Switchyard's adapter against a floor of the event-stream decoder
 * (`@smithy/eventstream-codec`, CRC-checked, with a length-prelude splitter) plus one `JSON.parse`
 * per event, on the same bytes. A 20,000-token text answer and a tool call whose input arrives as
 * 20,000 fragments, bulk delivery (one write), from a server in a separate process; each contender
 * in its own process, rounds interleaved; medians of CPU µs per token. Every run is checked (exact
 * text, deep-equal tool input). Goal: Switchyard ≤ 1.3 × the floor.
 *
 *   npm run bench:bedrock                 # 5 rounds × 3 runs after 2 warm-ups (about 30 s)
 *   node bench/bedrock.ts --rounds 2      # shorter
 */
import { execFile, fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, parseArgs, promisify } from 'node:util';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { createBedrock } from '../src/providers/bedrock/index.ts';
import { silentLogger } from '../src/core/logger.ts';
import { userText } from '../src/core/transcript.ts';
import { encodeEventStreamMessage } from '../src/transport/event-stream.ts';
import { benchTool, splitFragments, textTokens, toolRows } from './payloads.ts';
import { median } from './measure.ts';

type Scenario = 'text' | 'tool';
type Contender = 'floor' | 'switchyard';
const tokenCount = 20_000;
const self = fileURLToPath(import.meta.url);

function message(type: string, payload: object): Buffer {
  const headers = { ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' };
  return Buffer.from(encodeEventStreamMessage(headers, JSON.stringify(payload)));
}

/** The ConverseStream body of a scenario and what a client must end up with. */
function payload(scenario: Scenario): { body: Buffer; text: string; input: unknown } {
  const events = [message('messageStart', { role: 'assistant' })];
  let text = '';
  let input: unknown;
  if (scenario === 'text') {
    for (const token of textTokens(tokenCount)) {
      text += token;
      events.push(message('contentBlockDelta', { contentBlockIndex: 0, delta: { text: token } }));
    }
    events.push(message('contentBlockStop', { contentBlockIndex: 0 }));
  } else {
    input = { rows: toolRows(tokenCount / 4) };
    events.push(
      message('contentBlockStart', {
        contentBlockIndex: 0,
        start: { toolUse: { toolUseId: 'tooluse_bench', name: benchTool.name } },
      }),
    );
    for (const fragment of splitFragments(JSON.stringify(input), tokenCount))
      events.push(
        message('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: fragment } } }),
      );
    events.push(message('contentBlockStop', { contentBlockIndex: 0 }));
  }
  events.push(message('messageStop', { stopReason: scenario === 'text' ? 'end_turn' : 'tool_use' }));
  events.push(
    message('metadata', {
      usage: { inputTokens: 10, outputTokens: tokenCount, totalTokens: tokenCount + 10 },
    }),
  );
  return { body: Buffer.concat(events), text, input };
}

/** The server process: one route per scenario, the whole body in one write. */
function serve(): void {
  const bodies = { text: payload('text').body, tool: payload('tool').body };
  const server = createServer((request, response) => {
    request.resume();
    const body = request.url?.includes('tool') === true ? bodies.tool : bodies.text;
    response.writeHead(200, {
      'content-type': 'application/vnd.amazon.eventstream',
      'content-length': body.length,
    });
    response.end(body);
  });
  server.listen(0, '127.0.0.1', () => process.send?.((server.address() as AddressInfo).port));
  process.on('disconnect', () => server.close(() => process.exit(0)));
}

/** The floor: fetch, split messages by their length prelude, decode (CRC-checked), JSON.parse, join. */
async function runFloor(url: string): Promise<{ text: string; input: unknown }> {
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  const decoder = new TextDecoder();
  const response = await fetch(url, { method: 'POST', body: '{}' });
  const reader = response.body!.getReader();
  let pending = new Uint8Array(0);
  let text = '';
  let json = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    let bytes = value;
    if (pending.length > 0) {
      bytes = new Uint8Array(pending.length + value.length);
      bytes.set(pending);
      bytes.set(value, pending.length);
    }
    let offset = 0;
    while (bytes.length - offset >= 4) {
      const length = new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0);
      if (bytes.length - offset < length) break;
      const decoded = codec.decode(bytes.subarray(offset, offset + length));
      const event = JSON.parse(decoder.decode(decoded.body)) as {
        delta?: { text?: string; toolUse?: { input: string } };
      };
      if (event.delta?.text !== undefined) text += event.delta.text;
      if (event.delta?.toolUse !== undefined) json += event.delta.toolUse.input;
      offset += length;
    }
    pending = bytes.slice(offset);
  }
  return { text, input: json === '' ? undefined : JSON.parse(json) };
}

/** Switchyard: the Bedrock adapter's stream, every event iterated, then the built response. */
async function runSwitchyard(
  adapter: ReturnType<typeof createBedrock>,
  scenario: Scenario,
): Promise<{ text: string; input: unknown }> {
  const stream = adapter.stream({
    model: `bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0`,
    transcript: [userText(scenario)],
    maxOutputTokens: 64_000,
    ...(scenario === 'tool' ? { tools: [{ name: benchTool.name, inputSchema: benchTool.schema }] } : {}),
  });
  const pieces: string[] = [];
  for await (const event of stream) if (event.type === 'text-delta') pieces.push(event.delta);
  const response = await stream.result();
  const call = response.content.find((part) => part.type === 'tool-call');
  return { text: pieces.join(''), input: call?.type === 'tool-call' ? call.input : undefined };
}

/** A contender process: `runs` timed runs of one scenario; prints CPU µs per token of each. */
async function contend(contender: Contender, scenario: Scenario, port: number, runs: number): Promise<void> {
  const expected = payload(scenario);
  const root = `http://127.0.0.1:${port}`;
  const adapter = createBedrock({
    baseURL: `${root}/${scenario}`,
    apiKey: 'bench-bearer-token',
    maxRetries: 0,
    logger: silentLogger,
    env: {},
  });
  const run = () =>
    contender === 'floor' ? runFloor(`${root}/${scenario}`) : runSwitchyard(adapter, scenario);
  const samples: number[] = [];
  for (let index = 0; index < runs + 2; index++) {
    const start = process.cpuUsage();
    const outcome = await run();
    const cpu = process.cpuUsage(start);
    if (outcome.text !== expected.text || !isDeepStrictEqual(outcome.input, expected.input))
      throw new Error(`${contender} ${scenario}: wrong output`);
    if (index >= 2) samples.push((cpu.user + cpu.system) / tokenCount);
  }
  await adapter.close();
  process.stdout.write(JSON.stringify(samples));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      serve: { type: 'boolean' },
      contender: { type: 'string' },
      scenario: { type: 'string' },
      port: { type: 'string' },
      runs: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '5' },
    },
  });
  if (values.serve === true) return serve();
  if (values.contender !== undefined)
    return contend(
      values.contender as Contender,
      values.scenario as Scenario,
      Number(values.port),
      Number(values.runs),
    );
  const server = fork(self, ['--serve'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve) =>
    server.once('message', (value) => resolve(Number(value))),
  );
  const run = promisify(execFile);
  const samples: Record<string, number[]> = {};
  try {
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const scenario of ['text', 'tool'] as const) {
        for (const contender of ['floor', 'switchyard'] as const) {
          const args = [
            self,
            '--contender',
            contender,
            '--scenario',
            scenario,
            '--port',
            String(port),
            '--runs',
            values.runs,
          ];
          const { stdout } = await run(process.execPath, args, { maxBuffer: 1 << 20 });
          (samples[`${scenario}/${contender}`] ??= []).push(...(JSON.parse(stdout) as number[]));
        }
      }
    }
  } finally {
    server.disconnect();
  }
  console.log(
    `Bedrock ConverseStream, bulk, ${tokenCount} tokens, CPU µs per token (median of ${samples['text/floor']?.length} runs, each contender in its own process; Node ${process.version})`,
  );
  console.log('| scenario | floor: eventstream-codec + JSON.parse | Switchyard | ratio (goal ≤ 1.3) |');
  console.log('| --- | --- | --- | --- |');
  for (const scenario of ['text', 'tool']) {
    const floor = median(samples[`${scenario}/floor`] ?? []);
    const switchyard = median(samples[`${scenario}/switchyard`] ?? []);
    const ratio = switchyard / floor;
    console.log(
      `| ${scenario} | ${floor.toFixed(2)} | ${switchyard.toFixed(2)} | ${ratio.toFixed(2)} ${ratio <= 1.3 ? 'PASS' : 'FAIL'} |`,
    );
  }
}

await main();
