/**
 * `toolChoice: 'none'` on Bedrock Converse, which has no "none": without tool blocks in the history
 * no tools are sent (the model cannot call one); with them Converse requires a `toolConfig`
 * declaring the tools they used, so those are sent, described as not to be called — and a call
 * the model makes anyway is dropped from the reply with one WARN, the reply finishing `completed`:
 * a caller that asked for no tool call never gets one, whole or streamed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolCallId } from '../../src/core/ids.ts';
import { createMemoryLogger } from '../../src/core/logger.ts';
import type { CanonicalRequest } from '../../src/core/request.ts';
import { createBedrock } from '../../src/providers/bedrock/index.ts';
import { collectStream } from '../../src/testing/collect.ts';
import { type Emulator, startEmulator } from '../../src/testing/index.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator?.close();
});

const call = toolCallId('tooluse_chart_0001');
const request: CanonicalRequest = {
  model: 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  transcript: [
    { kind: 'user', parts: [{ type: 'text', text: 'Draw the chart, then sum it up.' }] },
    { kind: 'assistant', parts: [{ type: 'tool-call', id: call, name: 'chart', input: {} }] },
    {
      kind: 'tool',
      parts: [{ type: 'tool-result', callId: call, isError: false, output: { type: 'text', text: 'drawn' } }],
    },
  ],
  tools: [{ name: 'chart', description: 'Draws a chart', inputSchema: { type: 'object' } }],
  toolChoice: 'none',
  maxOutputTokens: 256,
};

function adapter() {
  const logger = createMemoryLogger();
  const bedrock = createBedrock({
    apiKey: 'bedrock-bearer-0123',
    baseURL: emulator.url,
    region: 'us-east-1',
    protocol: 'converse',
    maxRetries: 0,
    logger,
    env: {},
  });
  return { bedrock, logger };
}

/** The model calls the tool anyway, after some text. */
const callAnyway = () =>
  emulator.enqueue({
    type: 'scripted',
    chunkSize: 4,
    content: [
      { type: 'text', text: 'The chart is drawn.' },
      { type: 'tool-call', name: 'chart', input: { again: true } },
    ],
  });

const dropWarnings = (logger: ReturnType<typeof createMemoryLogger>) =>
  logger.entries.filter((entry) =>
    entry.message.includes("dropped a tool call: the request's tool choice is 'none'"),
  );

describe("Converse, tool choice 'none' with tool blocks in the history", () => {
  it('declares the used tool as not to be called', async () => {
    const { bedrock } = adapter();
    try {
      emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Done.' }] });
      await bedrock.complete(request);
      const body = emulator.requests.at(-1)!.body as {
        toolConfig?: { tools: unknown[]; toolChoice?: unknown };
      };
      expect(body.toolConfig?.toolChoice).toBeUndefined();
      expect(body.toolConfig?.tools).toEqual([
        {
          toolSpec: {
            name: 'chart',
            description: expect.stringMatching(/not available.*do not call it/i),
            inputSchema: { json: { type: 'object' } },
          },
        },
      ]);
    } finally {
      await bedrock.close();
    }
  });

  it('whole: a call made anyway is dropped with one WARN, the text kept, finish completed', async () => {
    const { bedrock, logger } = adapter();
    try {
      callAnyway();
      const reply = await bedrock.complete(request);
      expect(reply.content).toEqual([{ type: 'text', text: 'The chart is drawn.' }]);
      expect(reply.finishReason).toBe('completed');
      expect(dropWarnings(logger)).toHaveLength(1);
      expect(dropWarnings(logger)[0]!.fields).toMatchObject({ tool: 'chart' });
    } finally {
      await bedrock.close();
    }
  });

  it('streamed: no tool-call event reaches the caller, the same reply and WARN', async () => {
    const { bedrock, logger } = adapter();
    try {
      callAnyway();
      const { events, response, error } = await collectStream(bedrock.stream(request));
      expect(error).toBeUndefined();
      expect(events.some((event) => event.type.startsWith('tool-call'))).toBe(false);
      expect(response?.content).toEqual([{ type: 'text', text: 'The chart is drawn.' }]);
      expect(response?.finishReason).toBe('completed');
      expect(dropWarnings(logger)).toHaveLength(1);
    } finally {
      await bedrock.close();
    }
  });
});

it("Converse, tool choice 'none' without tool blocks: no tools are sent, and a reply's calls are not touched", async () => {
  const { bedrock } = adapter();
  try {
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Hi.' }] });
    await bedrock.complete({ ...request, transcript: request.transcript.slice(0, 1) });
    expect((emulator.requests.at(-1)!.body as { toolConfig?: unknown }).toolConfig).toBeUndefined();
  } finally {
    await bedrock.close();
  }
});
