/** `switchyard demo`: one session that switches provider mid-conversation, offline, via the emulator. */
import { createSession } from '../core/adapter.ts';
import type { StreamEvent } from '../core/events.ts';
import { createMemoryLogger } from '../core/logger.ts';
import type { CanonicalRequest } from '../core/request.ts';
import type { ToolSpec } from '../core/tools.ts';
import type { Item, ToolCallPart } from '../core/transcript.ts';
import { type EmulatorScript, startEmulator } from '../testing/emulator/index.ts';
import { assertStreamInvariants } from '../testing/invariants.ts';
import { createAdapterFor, defaultModelOf, resolveProviderType } from './adapters.ts';
import type { Output } from './replay-command.ts';

const weatherTool: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** Each turn: which API serves it (asked for its default model) and what the emulator answers. */
const turns: Array<{ protocol: string; script: EmulatorScript }> = [
  {
    protocol: 'anthropic-messages',
    script: {
      type: 'scripted',
      content: [
        { type: 'reasoning', text: 'The user wants the weather; call the tool.', signature: 'sig-demo-1' },
        { type: 'tool-call', name: 'get_weather', input: { city: 'Paris' } },
      ],
      finishReason: 'tool_use',
      usage: { input: 120, output: 40 },
    },
  },
  {
    protocol: 'openai-chat',
    script: {
      type: 'scripted',
      content: [{ type: 'text', text: 'It is 18 °C and sunny in Paris. Shall I check Lyon too?' }],
      usage: { input: 160, output: 18 },
    },
  },
  {
    protocol: 'gemini',
    script: {
      type: 'scripted',
      content: [{ type: 'tool-call', name: 'get_weather', input: { city: 'Lyon' } }],
      usage: { input: 190, output: 12 },
    },
  },
  {
    protocol: 'anthropic-messages',
    script: {
      type: 'scripted',
      content: [{ type: 'text', text: 'Lyon: 16 °C with light rain. Paris is the sunnier pick today.' }],
      usage: { input: 230, output: 20 },
    },
  },
];

function runTool(call: ToolCallPart): string {
  const city = String(call.input.city ?? 'unknown');
  return city === 'Paris' ? '18 °C, sunny' : `16 °C, light rain in ${city}`;
}

/** Runs the demo and prints what happens; returns the exit code. */
export async function runDemo(output: Output): Promise<number> {
  const emulator = await startEmulator();
  const logger = createMemoryLogger();
  const session = createSession();
  const transcript: Item[] = [
    { kind: 'system', parts: [{ type: 'text', text: 'You are a concise weather assistant.' }] },
    { kind: 'user', parts: [{ type: 'text', text: 'What is the weather in Paris?' }] },
  ];
  output.stdout(`Switchyard demo — emulator at ${emulator.url} (offline); one session, three providers.\n`);
  try {
    for (const [turnIndex, turn] of turns.entries()) {
      emulator.enqueue(turn.script);
      const api = resolveProviderType(turn.protocol);
      const model = defaultModelOf(api);
      const adapter = await createAdapterFor(api, {
        baseURL: emulator.url,
        apiKey: 'demo-key',
        logger,
      });
      const request: CanonicalRequest = {
        model,
        transcript,
        tools: [weatherTool],
        maxOutputTokens: 512,
      };
      const events: StreamEvent[] = [];
      let text = '';
      for await (const event of adapter.stream(request, { session })) {
        events.push(event);
        if (event.type === 'text-delta') text += event.delta;
      }
      await adapter.close();
      assertStreamInvariants(events);
      const finish = events.at(-1);
      if (finish?.type !== 'finish') throw new Error('stream ended without finish');
      const { response } = finish;
      output.stdout(
        `turn ${turnIndex + 1} · ${model} (${turn.protocol}) · finish ${response.finishReason} (${response.rawFinishReason})`,
      );
      if (text !== '') output.stdout(`  assistant: ${text}`);
      transcript.push({ kind: 'assistant', parts: response.content });
      const calls = response.content.filter((part): part is ToolCallPart => part.type === 'tool-call');
      for (const call of calls) {
        output.stdout(`  tool call ${call.name}(${JSON.stringify(call.input)}) · canonical id ${call.id}`);
        transcript.push({
          kind: 'tool',
          parts: [
            {
              type: 'tool-result',
              callId: call.id,
              name: call.name,
              output: { type: 'text', text: runTool(call) },
              isError: false,
            },
          ],
        });
      }
      output.stdout(
        `  usage: ${JSON.stringify(response.usage)} · ${events.length} events, stream contract holds`,
      );
      if (turnIndex === 1)
        transcript.push({ kind: 'user', parts: [{ type: 'text', text: 'Yes, and Lyon?' }] });
    }
    for (const entry of logger.entries) {
      output.stdout(
        `WARN ${entry.message}: ${String(entry.fields.reason)} (adapter ${String(entry.fields.adapter)})`,
      );
    }
    output.stdout(
      `\n${emulator.requests.length} requests, each accepted by the emulator's wire-protocol rules.`,
    );
    output.stdout(
      `Tool-id map of the session (provider, canonical, wire): ${JSON.stringify(session.toolIds.toJSON())}`,
    );
    return 0;
  } finally {
    await emulator.close();
  }
}
