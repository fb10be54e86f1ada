/**
 * A Responses client replays one reply's parallel calls with each output right after its call
 * (`reasoning, fc1, out1, fc2, out2`: valid Responses input, as coding agents record each call as
 * they run it). The gateway's stored entry of the reply knows the calls came together, so the
 * upstream gets one model turn with both calls and one turn with both results — Gemini 3 its real
 * signature on the turn (never the bypass value on a second turn), Claude one assistant turn that
 * starts with its thinking. Calls of two replies (a sequential tool loop) stay two turns.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorScript } from '../../src/testing/emulator/types.ts';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(() => harness.close());

interface OutputItem {
  type: string;
  call_id?: string;
}

const tool = { type: 'function', name: 'f', parameters: { type: 'object' }, strict: false };

async function respond(body: object): Promise<OutputItem[]> {
  const response = await harness.post('/v1/responses', {
    store: false,
    include: ['reasoning.encrypted_content'],
    reasoning: { effort: 'low' },
    tools: [tool],
    ...body,
  });
  const json = (await response.json()) as { output: OutputItem[] };
  expect(response.status, JSON.stringify(json)).toBe(200);
  return json.output;
}

const output = (call: OutputItem, text: string) => ({
  type: 'function_call_output',
  call_id: call.call_id,
  output: text,
});

/** The upstream's turns after the first user turn, as `role[part kinds]` (Gemini or Anthropic wire). */
function turns(): string[] {
  const body = harness.emulator.requests.at(-1)!.body as {
    contents?: Array<{ role: string; parts: Array<Record<string, unknown>> }>;
    messages?: Array<{ role: string; content: Array<Record<string, unknown>> }>;
  };
  const items =
    body.contents?.map((content) => ({ role: content.role, parts: content.parts })) ??
    body.messages!.map((message) => ({ role: message.role, parts: message.content }));
  return items.slice(1).map(({ role, parts }) => {
    const kinds = parts.map((part) => {
      if (typeof part.type === 'string') return part.type;
      if (part.functionCall !== undefined) return `functionCall(${String(part.thoughtSignature)})`;
      if (part.functionResponse !== undefined) return 'functionResponse';
      return part.thought === true ? 'thought' : 'text';
    });
    return `${role}[${kinds.join(',')}]`;
  });
}

/** One reply: reasoning and two parallel calls (the first signed, as Gemini 3 signs a turn). */
function parallelReply(): void {
  harness.emulator.enqueue({
    type: 'scripted',
    content: [
      { type: 'reasoning', text: 'plan both', signature: 'THOUGHT_SIG' },
      { type: 'tool-call', name: 'f', input: { city: 'Paris' }, signature: 'FC1_SIG' },
      { type: 'tool-call', name: 'f', input: { city: 'Lyon' } },
    ],
  } as EmulatorScript);
}

const done = () =>
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] } as EmulatorScript);

describe('parallel calls sent back one turn each are one turn again upstream', () => {
  it('Gemini 3: one model turn with the real signature, one turn of both responses', async () => {
    parallelReply();
    const question = { role: 'user', content: 'weather in Paris and Lyon' };
    const [reasoning, first, second] = await respond({ model: 'up-gemini3', input: [question] });
    done();
    await respond({
      model: 'up-gemini3',
      input: [question, reasoning, first, output(first!, 'sunny'), second, output(second!, 'rainy')],
    });
    expect(turns()).toEqual([
      'model[thought,functionCall(FC1_SIG),functionCall(undefined)]',
      'user[functionResponse,functionResponse]',
    ]);
  });

  it('Anthropic: one assistant turn led by its thinking, one turn of both results', async () => {
    parallelReply();
    const question = { role: 'user', content: 'weather in Paris and Lyon' };
    const [reasoning, first, second] = await respond({ model: 'up-anthropic', input: [question] });
    done();
    await respond({
      model: 'up-anthropic',
      input: [question, reasoning, first, output(first!, 'sunny'), second, output(second!, 'rainy')],
    });
    expect(turns()).toEqual(['assistant[thinking,tool_use,tool_use]', 'user[tool_result,tool_result]']);
  });

  it('calls of two replies (a sequential tool loop) stay two turns', async () => {
    const question = { role: 'user', content: 'weather in Paris, then Lyon' };
    harness.emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'tool-call', name: 'f', input: { city: 'Paris' } }],
    } as EmulatorScript);
    const [first] = await respond({ model: 'up-anthropic', input: [question] });
    harness.emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'tool-call', name: 'f', input: { city: 'Lyon' } }],
    } as EmulatorScript);
    const [second] = await respond({
      model: 'up-anthropic',
      input: [question, first, output(first!, 'sunny')],
    });
    done();
    await respond({
      model: 'up-anthropic',
      input: [question, first, output(first!, 'sunny'), second, output(second!, 'rainy')],
    });
    expect(turns()).toEqual([
      'assistant[tool_use]',
      'user[tool_result]',
      'assistant[tool_use]',
      'user[tool_result]',
    ]);
  });
});
