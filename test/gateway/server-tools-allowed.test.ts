/**
 * `gateway.builtin_tools` judges an Anthropic client's server tools as it judges a Responses
 * client's built-in tools: they run under the operator's key, so those it does not list
 * (`code_execution_…` by default: a container of the operator's account) are left out with the
 * request's WARN, a `tool_choice` naming one is dropped, and `any` with nothing left is refused. The
 * tools Anthropic defines but the client runs (`bash_…`, `text_editor_…`, `computer_…`,
 * `memory_…`) always pass.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicClient, type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

type Json = Record<string, unknown>;

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

const webSearch = { type: 'web_search_20250305', name: 'web_search', max_uses: 3 };
const webFetch = { type: 'web_fetch_20250910', name: 'web_fetch' };
const codeExecution = { type: 'code_execution_20250825', name: 'code_execution' };
const bash = { type: 'bash_20250124', name: 'bash' };
const editor = { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' };
const computer = {
  type: 'computer_20250124',
  name: 'computer',
  display_width_px: 1024,
  display_height_px: 768,
};
const memory = { type: 'memory_20250818', name: 'memory' };
const readFile = {
  name: 'read_file',
  input_schema: { type: 'object', properties: { path: { type: 'string' } } },
};

/** Sends an Anthropic request through `gateway`; its status, the body the upstream got and the request's WARN details. */
async function send(
  fields: Json,
  gateway: GatewayHarness = harness,
): Promise<{ status: number; body: Json | undefined; warned: string[]; reply: string }> {
  const requests = gateway.emulator.requests.length;
  const entries = gateway.logger.entries.length;
  gateway.emulator.enqueue(scriptedText('Hi.'));
  const response = await gateway.post(
    '/v1/messages',
    { model: 'up-anthropic', max_tokens: 50, messages: [{ role: 'user', content: 'Hello?' }], ...fields },
    anthropicClient,
  );
  const reply = await response.text();
  const warned = gateway.logger.entries
    .slice(entries)
    .filter((entry) => entry.message === 'gateway: part of the request was left out')
    .flatMap((entry) => entry.fields.details as string[]);
  const sent = gateway.emulator.requests.length > requests;
  return {
    reply,
    status: response.status,
    body: sent ? (gateway.emulator.requests.at(-1)!.body as Json) : undefined,
    warned,
  };
}

describe('by default', () => {
  it('web search and web fetch reach the upstream as written; code execution is left out with the WARN', async () => {
    const { status, body, warned } = await send({ tools: [webSearch, codeExecution, webFetch] });
    expect(status).toBe(200);
    expect(body!.tools).toEqual([webSearch, webFetch]);
    expect(warned).toEqual([
      "tools.1: tool type 'code_execution_20250825' (as 'code_execution') is not offered to the model (the gateway does not allow it: gateway.builtin_tools)",
    ]);
  });

  it('the tools the client runs (bash, text editor, computer, memory) pass beside function tools, with no WARN', async () => {
    const { status, body, warned } = await send({ tools: [readFile, bash, editor, computer, memory] });
    expect(status).toBe(200);
    expect(body!.tools).toEqual([
      expect.objectContaining({ name: 'read_file' }),
      bash,
      editor,
      computer,
      memory,
    ]);
    expect(warned).toEqual([]);
  });

  it('a tool_choice naming a left-out server tool is dropped with it: the model chooses', async () => {
    const { status, body, warned } = await send({
      tools: [readFile, codeExecution],
      tool_choice: { type: 'tool', name: 'code_execution' },
    });
    expect(status).toBe(200);
    expect(body!.tools).toEqual([expect.objectContaining({ name: 'read_file' })]);
    expect(body!.tool_choice).toBeUndefined();
    expect(warned).toEqual([
      expect.stringMatching(/^tools\.1: tool type 'code_execution_20250825'/),
      "tool_choice: server tool 'code_execution' is not offered to the model (the gateway does not allow it: gateway.builtin_tools); the model chooses",
    ]);
  });

  it('tool_choice any whose only tools are left out is a 400 naming tool_choice, and nothing reaches the upstream', async () => {
    const { status, body, reply } = await send({ tools: [codeExecution], tool_choice: { type: 'any' } });
    expect(status).toBe(400);
    expect(reply).toContain(
      "tool_choice: any asks for a tool call, but the request's only tools are server tools",
    );
    expect(body).toBeUndefined();
  });

  it('a count leaves out the same server tools, with the same WARN', async () => {
    const entries = harness.logger.entries.length;
    const response = await harness.post(
      '/v1/messages/count_tokens',
      {
        model: 'up-anthropic',
        messages: [{ role: 'user', content: 'Hello?' }],
        tools: [webSearch, codeExecution],
      },
      anthropicClient,
    );
    expect(response.status).toBe(200);
    const warned = harness.logger.entries
      .slice(entries)
      .filter((entry) => entry.message === 'gateway: part of the request was left out')
      .flatMap((entry) => entry.fields.details as string[]);
    expect(warned).toEqual([expect.stringMatching(/^tools\.1: tool type 'code_execution_20250825'/)]);
  });
});

it('gateway.builtin_tools lets an operator allow code execution; the list replaces the default, and client-run tools still pass', async () => {
  const allowing = await startGatewayHarness({ builtin_tools: ['code_execution'] });
  try {
    const { status, body, warned } = await send({ tools: [codeExecution, webSearch, bash] }, allowing);
    expect(status).toBe(200);
    expect(body!.tools).toEqual([codeExecution, bash]);
    expect(warned).toEqual([
      expect.stringMatching(/^tools\.1: tool type 'web_search_20250305' \(as 'web_search'\)/),
    ]);
  } finally {
    await allowing.close();
  }
});
