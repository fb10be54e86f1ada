/**
 * A Responses client's built-in tools (`web_search`, `apply_patch`, `local_shell`, …) through the
 * gateway, with the official `openai` SDK. Codex always sends some. Toward a Responses upstream they
 * go as written, after the function tools, and so does a `tool_choice` naming one; toward any other
 * upstream they are left out with one WARN naming each, and the request is served. Before, they were
 * left out on every route: Codex's `web_search` never reached OpenAI, and a turn replaying an
 * `apply_patch_call` reached it with the tool undeclared.
 */
import { join } from 'node:path';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protocolError } from '../../src/testing/emulator/protocol-errors.ts';
import { readRecorded, recordedDir } from '../support/fixtures.ts';
import { createClients, type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
let client: OpenAI;
beforeAll(async () => {
  harness = await startGatewayHarness();
  client = createClients(harness.server.url).openai;
});
afterAll(() => harness.close());

type Json = Record<string, unknown>;

/** Codex's tools (trimmed): its `shell` function and the built-in `web_search` it always sends. */
const shell = {
  type: 'function',
  name: 'shell',
  description: 'Runs a shell command and returns its output.',
  parameters: {
    type: 'object',
    properties: { command: { type: 'array', items: { type: 'string' } } },
    required: ['command'],
  },
  strict: false,
};
const webSearch = { type: 'web_search' };

/** Sends a Codex-shaped request to `model`; the reply's text, the body the upstream got and the request's WARN details. */
async function send(model: string, fields: Json): Promise<{ text: string; body: Json; warned: string[] }> {
  const requests = harness.emulator.requests.length;
  const entries = harness.logger.entries.length;
  harness.emulator.enqueue(scriptedText('Hi.'));
  const response = await client.responses.create({
    model,
    instructions: 'You are Codex, a coding agent.',
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is new?' }] }],
    parallel_tool_calls: false,
    store: false,
    stream: false,
    ...fields,
  } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
  expect(harness.emulator.requests).toHaveLength(requests + 1);
  const warned = harness.logger.entries
    .slice(entries)
    .filter((entry) => entry.message === 'gateway: part of the request was left out')
    .flatMap((entry) => entry.fields.details as string[]);
  return { text: response.output_text, body: harness.emulator.requests.at(-1)!.body as Json, warned };
}

describe('Codex-shaped request with web_search and a function tool', () => {
  it('reaches a Responses upstream with web_search in tools, after the function, with no WARN', async () => {
    const { text, body, warned } = await send('up-responses', {
      tools: [shell, webSearch],
      tool_choice: 'auto',
    });
    expect(text).toBe('Hi.');
    expect(body.tools).toEqual([
      expect.objectContaining({ type: 'function', name: 'shell' }),
      { type: 'web_search' },
    ]);
    expect(body.tool_choice).toBe('auto');
    expect(warned).toEqual([]);
  });

  it('reaches an Anthropic upstream with the function only, a WARN naming web_search, and is answered', async () => {
    const { text, body, warned } = await send('up-anthropic', {
      tools: [shell, webSearch],
      tool_choice: 'auto',
    });
    expect(text).toBe('Hi.');
    expect((body.tools as Json[]).map((tool) => tool.name)).toEqual(['shell']);
    expect(JSON.stringify(body)).not.toContain('web_search');
    expect(warned).toEqual([
      expect.stringMatching(/^tools\.1: tool type 'web_search' is not offered to the model/),
    ]);
  });

  it('a built-in tool with options (web_search filters) reaches a Responses upstream as written; by default not one that names the account’s resources or a server (mcp, file_search, code_interpreter)', async () => {
    const search = {
      type: 'web_search',
      filters: { allowed_domains: ['example.com'] },
      search_context_size: 'low',
    };
    const mcp = {
      type: 'mcp',
      server_label: 'docs',
      server_url: 'https://mcp.example.com',
      require_approval: 'never',
    };
    const files = { type: 'file_search', vector_store_ids: ['vs_of_another_team'] };
    const code = { type: 'code_interpreter', container: 'cntr_of_another_team' };
    const { body, warned } = await send('up-responses', { tools: [search, shell, mcp, files, code] });
    expect(body.tools).toEqual([expect.objectContaining({ name: 'shell' }), search]);
    expect(warned).toEqual([
      expect.stringMatching(/^tools\.2: tool type 'mcp' is not offered .*gateway\.builtin_tools/),
      expect.stringMatching(/^tools\.3: tool type 'file_search' is not offered .*gateway\.builtin_tools/),
      expect.stringMatching(
        /^tools\.4: tool type 'code_interpreter' is not offered .*gateway\.builtin_tools/,
      ),
    ]);
  });

  it('by default a shell in a hosted container (another team’s container or files) is left out with a WARN naming hosted_shell; a local one reaches the upstream', async () => {
    const reference = {
      type: 'shell',
      environment: { type: 'container_reference', container_id: 'cntr_of_another_team' },
    };
    const auto = {
      type: 'shell',
      environment: { type: 'container_auto', file_ids: ['file-of_another_team'] },
    };
    const local = { type: 'shell', environment: { type: 'local' } };
    for (const hosted of [reference, auto]) {
      const { body, warned } = await send('up-responses', { tools: [shell, hosted] });
      expect(body.tools).toEqual([expect.objectContaining({ name: 'shell' })]);
      expect(warned).toEqual([
        expect.stringMatching(
          /^tools\.1: tool type 'shell' \(as 'hosted_shell'\) is not offered .*gateway\.builtin_tools/,
        ),
      ]);
    }
    const { body, warned } = await send('up-responses', { tools: [shell, local] });
    expect(body.tools).toEqual([expect.objectContaining({ name: 'shell' }), local]);
    expect(warned).toEqual([]);
  });

  it('an image_generation mask by file_id (an upload of the operator’s account) is a 400 naming it, never sent', async () => {
    const requests = harness.emulator.requests.length;
    const error = await client.responses
      .create({
        model: 'up-responses',
        input: 'Edit it.',
        tools: [{ type: 'image_generation', input_image_mask: { file_id: 'file-of_another_team' } }],
      })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 400, error: { param: 'tools.0.input_image_mask.file_id' } });
    expect(harness.emulator.requests).toHaveLength(requests);
  });

  it('gateway.builtin_tools lets an operator allow more: an mcp server then reaches the upstream as written, with a tool_choice naming it', async () => {
    const allowing = await startGatewayHarness({ builtin_tools: ['web_search', 'mcp'] });
    try {
      const mcp = { type: 'mcp', server_label: 'docs', server_url: 'https://mcp.example.com' };
      allowing.emulator.enqueue(scriptedText('Hi.'));
      await createClients(allowing.server.url).openai.responses.create({
        model: 'up-responses',
        input: 'What is new?',
        tools: [mcp, webSearch, { type: 'image_generation' }],
        tool_choice: { type: 'mcp', server_label: 'docs' },
      } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
      const body = allowing.emulator.requests.at(-1)!.body as Json;
      expect(body.tools).toEqual([mcp, webSearch]);
      expect(body.tool_choice).toEqual({ type: 'mcp', server_label: 'docs' });
    } finally {
      await allowing.close();
    }
  });
});

describe('apply_patch: the tool and a replayed apply_patch_call turn', () => {
  const [recorded] = (
    JSON.parse(readRecorded(join(recordedDir, 'openai/responses', 'openai-apply-patch-tool.1.json'))) as {
      output: Json[];
    }
  ).output;
  const answer = {
    type: 'apply_patch_call_output',
    call_id: recorded!.call_id,
    status: 'completed',
    output: 'Created shopping-checklist.md',
  };
  const input = [{ role: 'user', content: 'Make a shopping list.' }, recorded, answer];

  it('reaches a Responses upstream with apply_patch declared and the call and its output as the client sent them', async () => {
    const { text, body, warned } = await send('up-responses', {
      input,
      tools: [shell, { type: 'apply_patch' }],
    });
    expect(text).toBe('Hi.');
    expect(body.tools).toEqual([expect.objectContaining({ name: 'shell' }), { type: 'apply_patch' }]);
    expect((body.input as unknown[]).slice(1)).toEqual([recorded, answer]);
    expect(warned).toEqual([]);
  });

  it('reaches an Anthropic upstream as an ordinary call and result, the built-in tool left out with a WARN', async () => {
    const { text, body, warned } = await send('up-anthropic', {
      input,
      tools: [shell, { type: 'apply_patch' }],
    });
    expect(text).toBe('Hi.');
    expect((body.tools as Json[]).map((tool) => tool.name)).toEqual(['shell']);
    expect(warned).toEqual([expect.stringContaining("tool type 'apply_patch'")]);
  });
});

describe('tool_choice naming a built-in tool', () => {
  it('reaches a Responses upstream as written', async () => {
    const { body, warned } = await send('up-responses', {
      tools: [shell, webSearch],
      tool_choice: { type: 'web_search' },
    });
    expect(body.tool_choice).toEqual({ type: 'web_search' });
    expect(warned).toEqual([]);
  });

  it('toward an Anthropic upstream is left out with the tool (the model chooses), with a WARN naming both; answered, not refused', async () => {
    const { text, body, warned } = await send('up-anthropic', {
      tools: [shell, webSearch],
      tool_choice: { type: 'web_search' },
    });
    expect(text).toBe('Hi.');
    // The model chooses: `auto` (the request's `parallel_tool_calls: false` rides on it), no forced tool.
    expect(body.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(warned).toEqual([
      expect.stringContaining("tools.1: tool type 'web_search'"),
      expect.stringMatching(/^tool_choice: built-in tool 'web_search' is not offered to the model/),
    ]);
  });
});

describe('tool_choice required with built-in tools only', () => {
  it('reaches a Responses upstream as written, beside the tools (it was a 400)', async () => {
    const { body, warned } = await send('up-responses', { tools: [webSearch], tool_choice: 'required' });
    expect(body.tools).toEqual([webSearch]);
    expect(body.tool_choice).toBe('required');
    expect(warned).toEqual([]);
  });

  it('toward an Anthropic upstream, where no tool would be offered, is a 400 naming tool_choice', async () => {
    const response = await harness.post(
      '/v1/responses',
      { model: 'up-anthropic', input: 'Hi', tools: [webSearch], tool_choice: 'required' },
      { authorization: 'Bearer client-key' },
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { param: 'tool_choice', message: expect.stringContaining("built-in tools ('web_search')") },
    });
  });
});

describe('a Responses model whose fallback is another provider', () => {
  /** A Responses model falling back to Claude; its first answer a 429, so the fallback serves. */
  async function viaFallback(stream: boolean) {
    const routed = await startGatewayHarness(
      {},
      {},
      {
        'responses:gpt-5-nano': {
          aliases: ['responses-or-claude'],
          fallbacks: ['anthropic:claude-sonnet-4-5'],
        },
      },
    );
    try {
      routed.emulator.enqueue(protocolError('openai-responses', 'rate_limit'));
      routed.emulator.enqueue(scriptedText('From Claude.'));
      const openai = createClients(routed.server.url).openai;
      const request = {
        model: 'responses-or-claude',
        input: 'What is new?',
        tools: [shell, webSearch],
        tool_choice: { type: 'web_search' },
      };
      let text = '';
      if (stream) {
        const events = await openai.responses.create({
          ...request,
          stream: true,
        } as OpenAI.Responses.ResponseCreateParamsStreaming);
        for await (const event of events)
          if (event.type === 'response.output_text.delta') text += event.delta;
      } else
        text = (await openai.responses.create(request as OpenAI.Responses.ResponseCreateParamsNonStreaming))
          .output_text;
      const [primary, fallback] = routed.emulator.requests.slice(-2) as Array<{
        protocol: string;
        body: Json;
      }>;
      const warned = routed.logger.entries
        .filter((entry) => entry.message === 'gateway: part of the request was left out')
        .flatMap((entry) => entry.fields.details as string[]);
      return { text, primary: primary!, fallback: fallback!, warned };
    } finally {
      await routed.close();
    }
  }

  it.each([false, true])(
    'served by the fallback (stream: %s): the built-in tools and their tool_choice are named in the WARN, not dropped silently',
    async (stream) => {
      const { text, primary, fallback, warned } = await viaFallback(stream);
      expect(text).toBe('From Claude.');
      expect(primary).toMatchObject({
        protocol: 'openai-responses',
        body: { tools: [expect.anything(), webSearch] },
      });
      expect(fallback.protocol).toBe('anthropic-messages');
      expect(JSON.stringify(fallback.body)).not.toContain('web_search');
      expect(warned).toEqual([
        "tools.1: tool type 'web_search' is not offered to the model (only a Responses upstream serves it; the fallback 'anthropic:claude-sonnet-4-5' is not one)",
        "tool_choice: built-in tool 'web_search' is not offered to the model (only a Responses upstream serves it; the fallback 'anthropic:claude-sonnet-4-5' is not one); the model chooses",
      ]);
    },
  );
});
