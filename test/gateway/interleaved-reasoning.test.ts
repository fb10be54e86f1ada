/**
 * One reply that alternates reasoning and tool calls (reasoning, call, reasoning, call), replayed by
 * a client whose protocol has no field for signed reasoning (Chat Completions): the gateway puts
 * each stored reasoning part back before the call it preceded, so every upstream gets the original
 * interleaving. Found by a prober: all reasoning went in front of the first call, and OpenAI's
 * Responses adapter then dropped the first of two adjacent reasoning items (its signature lost).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorScript } from '../../src/testing/emulator/types.ts';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(() => harness.close());

const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }];

interface ChatReply {
  choices: Array<{ message: { content: string | null; tool_calls: Array<{ id: string }> } }>;
}

async function chat(body: object): Promise<ChatReply> {
  const response = await harness.post('/v1/chat/completions', body);
  const json = (await response.json()) as ChatReply;
  expect(response.status, JSON.stringify(json)).toBe(200);
  return json;
}

/** Turn 1 alternates; turn 2 is the Chat client's replay (no reasoning); the upstream's turn-2 body. */
async function replayAlternating(model: string): Promise<unknown> {
  harness.emulator.enqueue({
    type: 'scripted',
    content: [
      { type: 'reasoning', text: 'first thought', signature: 'SIG_ONE' },
      { type: 'tool-call', name: 'f', input: { a: 1 } },
      { type: 'reasoning', text: 'second thought', signature: 'SIG_TWO' },
      { type: 'tool-call', name: 'f', input: { a: 2 } },
    ],
  } as EmulatorScript);
  const messages: object[] = [{ role: 'user', content: 'hi' }];
  const first = await chat({ model, reasoning_effort: 'low', messages, tools });
  const { content, tool_calls } = first.choices[0]!.message;
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'done' }] } as EmulatorScript);
  await chat({
    model,
    reasoning_effort: 'low',
    tools,
    messages: [
      ...messages,
      { role: 'assistant', content, tool_calls },
      ...tool_calls.map((call) => ({ role: 'tool', tool_call_id: call.id, content: 'r' })),
    ],
  });
  return harness.emulator.requests.at(-1)!.body;
}

describe('interleaved reasoning and calls keep their order for a Chat client', () => {
  it('Responses upstream: both reasoning items go back, each before its call', async () => {
    const body = (await replayAlternating('up-responses')) as {
      input: Array<{ type: string; encrypted_content?: string; arguments?: string }>;
    };
    const shape = body.input
      .filter((item) => item.type === 'reasoning' || item.type === 'function_call')
      .map((item) =>
        item.type === 'reasoning' ? item.encrypted_content : (JSON.parse(item.arguments!) as { a: number }).a,
      );
    expect(shape).toEqual(['SIG_ONE', 1, 'SIG_TWO', 2]);
  });

  it('Anthropic upstream: thinking, tool_use, thinking, tool_use', async () => {
    const body = (await replayAlternating('up-anthropic')) as {
      messages: Array<{
        role: string;
        content: Array<{ type: string; signature?: string; input?: { a: number } }>;
      }>;
    };
    const assistant = body.messages.find((message) => message.role === 'assistant')!;
    expect(
      assistant.content.map((block) => (block.type === 'thinking' ? block.signature : block.input!.a)),
    ).toEqual(['SIG_ONE', 1, 'SIG_TWO', 2]);
  });

  it('Gemini 3 upstream: thought, functionCall, thought, functionCall', async () => {
    const body = (await replayAlternating('up-gemini3')) as {
      contents: Array<{
        role: string;
        parts: Array<{
          thought?: boolean;
          thoughtSignature?: string;
          functionCall?: { args: { a: number } };
        }>;
      }>;
    };
    const model = body.contents.find((content) => content.role === 'model')!;
    expect(
      model.parts.map((part) => (part.thought === true ? part.thoughtSignature : part.functionCall!.args.a)),
    ).toEqual(['SIG_ONE', 1, 'SIG_TWO', 2]);
  });
});
