/**
 * A Gemini client's fields no other protocol's request carries: `seed`, `presencePenalty`,
 * `frequencyPenalty` and `mediaResolution` reach a Gemini upstream as written (ignored elsewhere,
 * as a Chat client's seed and penalties are); function-calling mode `VALIDATED` reaches Gemini as
 * itself, and another upstream as `auto` with every tool strict (schema adherence where it has it);
 * `allowedFunctionNames` beside a mode other than ANY or VALIDATED is refused, as Gemini refuses it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClients, type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

const generate = (model: string, extra: Record<string, unknown>) =>
  harness.post(`/v1beta/models/${model}:generateContent`, {
    contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
    ...extra,
  });
const sent = () => harness.emulator.requests.at(-1)!.body as Record<string, unknown>;

describe('seed, penalties and mediaResolution', () => {
  const generationConfig = {
    seed: 7,
    presencePenalty: 0.4,
    frequencyPenalty: 0.2,
    mediaResolution: 'MEDIA_RESOLUTION_LOW',
    maxOutputTokens: 99,
  };

  it('reach a Gemini upstream as written', async () => {
    harness.emulator.enqueue(scriptedText());
    const response = await generate('up-gemini', { generationConfig });
    expect(response.status).toBe(200);
    expect(sent().generationConfig).toMatchObject(generationConfig);
  });

  it('are left out toward another provider, and the call is answered', async () => {
    harness.emulator.enqueue(scriptedText());
    const response = await generate('up-chat', { generationConfig });
    expect(response.status).toBe(200);
    expect(JSON.stringify(sent())).not.toMatch(/seed|penalty|resolution/i);
  });

  it.each([
    ['a seed that is no integer', { seed: 1.5 }, 'generationConfig.seed'],
    ['a penalty that is no number', { presencePenalty: 'high' }, 'generationConfig.presencePenalty'],
    ['an unknown mediaResolution', { mediaResolution: 'ULTRA' }, 'generationConfig.mediaResolution'],
  ])('%s is a 400 naming the field', async (_case, config, field) => {
    const before = harness.emulator.requests.length;
    const response = await generate('up-gemini', { generationConfig: config });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(field);
    expect(harness.emulator.requests.length).toBe(before);
  });
});

describe('functionCallingConfig.mode VALIDATED', () => {
  const tools = [
    {
      functionDeclarations: [
        {
          name: 'weather',
          parametersJsonSchema: {
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
          },
        },
      ],
    },
  ];
  const toolConfig = { functionCallingConfig: { mode: 'VALIDATED' } };

  it('reaches a Gemini upstream as VALIDATED', async () => {
    harness.emulator.enqueue(scriptedText());
    const response = await generate('up-gemini', { tools, toolConfig });
    expect(response.status).toBe(200);
    expect(sent().toolConfig).toEqual({ functionCallingConfig: { mode: 'VALIDATED' } });
  });

  it('reaches an OpenAI upstream as auto with the tool strict', async () => {
    harness.emulator.enqueue(scriptedText());
    const response = await generate('up-chat', { tools, toolConfig });
    expect(response.status).toBe(200);
    const body = sent() as { tool_choice: unknown; tools: Array<{ function: { strict?: boolean } }> };
    expect(body.tool_choice).toBe('auto');
    expect(body.tools[0]!.function.strict).toBe(true);
  });

  it('AUTO stays AUTO toward Gemini, the tool not strict elsewhere', async () => {
    harness.emulator.enqueue(scriptedText());
    await generate('up-gemini', { tools, toolConfig: { functionCallingConfig: { mode: 'AUTO' } } });
    expect(sent().toolConfig).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    harness.emulator.enqueue(scriptedText());
    await generate('up-chat', { tools, toolConfig: { functionCallingConfig: { mode: 'AUTO' } } });
    const body = sent() as { tools: Array<{ function: { strict?: boolean } }> };
    expect(body.tools[0]!.function.strict).toBeUndefined();
  });
});

describe('functionCallingConfig.allowedFunctionNames', () => {
  const functionDeclarations = ['a', 'b', 'c'].map((name) => ({
    name,
    parametersJsonSchema: { type: 'object', properties: { x: { type: 'string' } } },
  }));

  it.each([['AUTO'], ['NONE'], [undefined]])(
    'beside mode %s is a 400 naming the field, and nothing is sent upstream',
    async (mode) => {
      const { google } = createClients(harness.server.url);
      const before = harness.emulator.requests.length;
      const error = await google.models
        .generateContent({
          model: 'up-anthropic',
          contents: 'go',
          config: {
            tools: [{ functionDeclarations }],
            toolConfig: { functionCallingConfig: { mode: mode as never, allowedFunctionNames: ['c'] } },
          },
        })
        .then(
          () => undefined,
          (thrown: unknown) => thrown as { status?: number; message: string },
        );
      expect(error?.status).toBe(400);
      expect(error?.message).toContain('toolConfig.functionCallingConfig.allowedFunctionNames');
      expect(harness.emulator.requests.length).toBe(before);
    },
  );

  it('beside ANY still offers only the allowed tools', async () => {
    harness.emulator.enqueue(scriptedText());
    const response = await generate('up-chat', {
      tools: [{ functionDeclarations }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['b', 'c'] } },
    });
    expect(response.status).toBe(200);
    const body = sent() as { tools: Array<{ function: { name: string } }>; tool_choice: unknown };
    expect(body.tools.map((tool) => tool.function.name)).toEqual(['b', 'c']);
    expect(body.tool_choice).toBe('required');
  });
});
