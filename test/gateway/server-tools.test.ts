/**
 * Anthropic's server tools (`web_search_…`, run by Anthropic itself) through the gateway: an
 * Anthropic client routed to an Anthropic upstream gets them as if it called Anthropic directly —
 * the tool definitions reach the upstream as written, its `server_tool_use` and
 * `web_search_tool_result` blocks come back whole (streamed and not), with the citations of the
 * text that quotes them and the `caller` of a call made by code execution, and the next turn's
 * history carries them back verbatim. No other provider runs them: a route elsewhere is a 400 naming
 * `tools`, and fallbacks to another provider type are not taken.
 */
import { join } from 'node:path';
import { protocolError } from 'switchyard-ai/testing';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { readRecorded, recordedDir } from '../support/fixtures.ts';
import { createClients, type GatewayHarness, startGatewayHarness, anthropicClient } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => {
  harness.emulator.clear(); // the queue; the request log keeps growing
});
afterAll(async () => {
  await harness?.close();
});

const webSearch = { type: 'web_search_20250305', name: 'web_search', max_uses: 3 };
const serverCall = {
  type: 'server_tool_use',
  id: 'srvtoolu_01A',
  name: 'web_search',
  input: { query: 'weather in Paris' },
};
const searchResult = {
  type: 'web_search_tool_result',
  tool_use_id: 'srvtoolu_01A',
  content: [
    {
      type: 'web_search_result',
      url: 'https://example.com/paris',
      title: 'Paris weather',
      encrypted_content: 'EqgfCioIARgBIiQ3',
      page_age: null,
    },
  ],
};
const searchReply = {
  type: 'scripted' as const,
  content: [
    { type: 'custom' as const, kind: 'server_tool_use', data: serverCall },
    { type: 'custom' as const, kind: 'web_search_tool_result', data: searchResult },
    { type: 'text' as const, text: 'It is sunny in Paris.' },
  ],
  usage: { input: 20, output: 10 },
};
const question = [{ role: 'user' as const, content: 'What is the weather in Paris?' }];

it('the server tool reaches the upstream as written, and its blocks come back whole, not streamed', async () => {
  harness.emulator.enqueue(searchReply);
  const { anthropic } = createClients(harness.server.url);
  const message = await anthropic.messages.create({
    model: 'up-anthropic',
    max_tokens: 200,
    messages: question,
    tools: [webSearch as never],
  });
  const sent = harness.emulator.requests.at(-1)!.body as { tools: unknown[] };
  expect(sent.tools).toContainEqual(webSearch);
  expect(message.content).toEqual([
    serverCall,
    searchResult,
    expect.objectContaining({ type: 'text', text: 'It is sunny in Paris.' }),
  ]);
});

it('streamed, the SDK’s accumulated message holds the same blocks', async () => {
  harness.emulator.enqueue(searchReply);
  const { anthropic } = createClients(harness.server.url);
  const message = await anthropic.messages
    .stream({ model: 'up-anthropic', max_tokens: 200, messages: question, tools: [webSearch as never] })
    .finalMessage();
  expect(message.content.slice(0, 2)).toEqual([serverCall, searchResult]);
  expect(message.content[2]).toMatchObject({ type: 'text', text: 'It is sunny in Paris.' });
});

it('the next turn’s history carries the blocks back to the upstream verbatim', async () => {
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'You are welcome.' }] });
  const { anthropic } = createClients(harness.server.url);
  await anthropic.messages.create({
    model: 'up-anthropic',
    max_tokens: 200,
    tools: [webSearch as never],
    messages: [
      ...question,
      {
        role: 'assistant',
        content: [serverCall, searchResult, { type: 'text', text: 'It is sunny in Paris.' }] as never,
      },
      { role: 'user', content: 'Thanks!' },
    ],
  });
  const sent = harness.emulator.requests.at(-1)!.body as {
    messages: Array<{ role: string; content: unknown[] }>;
  };
  const assistant = sent.messages.find((message) => message.role === 'assistant')!;
  expect(assistant.content.slice(0, 2)).toEqual([serverCall, searchResult]);
});

it('routed to another provider, a server tool is a 400 naming tools, and nothing reaches an upstream', async () => {
  const before = harness.emulator.requests.length;
  const response = await harness.post(
    '/v1/messages',
    { model: 'up-chat', max_tokens: 50, messages: question, tools: [webSearch] },
    anthropicClient,
  );
  expect(response.status).toBe(400);
  const body = (await response.json()) as { error: { type: string; message: string } };
  expect(body.error.type).toBe('invalid_request_error');
  expect(body.error.message).toContain("server tool 'web_search_20250305'");
  expect(harness.emulator.requests.length).toBe(before);
});

it('an unknown model with a server tool is the 404 unknown model, not the 400 about another provider', async () => {
  const before = harness.emulator.requests.length;
  const response = await harness.post(
    '/v1/messages',
    {
      model: 'claude-typo-4-5',
      max_tokens: 50,
      messages: question,
      tools: [webSearch],
    },
    anthropicClient,
  );
  expect(response.status).toBe(404);
  const body = (await response.json()) as { error: { type: string; message: string } };
  expect(body.error).toMatchObject({ type: 'not_found_error' });
  expect(body.error.message).toContain('unknown model "claude-typo-4-5"');
  expect(harness.emulator.requests.length).toBe(before);
});

it('a failing Anthropic model does not fall back to another provider type, which would run without the tool', async () => {
  harness.emulator.enqueue(protocolError('anthropic-messages', 'rate_limit'));
  const before = harness.emulator.requests.length;
  const response = await harness.post(
    '/v1/messages',
    { model: 'up-fallback', max_tokens: 50, messages: question, tools: [webSearch] },
    anthropicClient,
  );
  expect(response.status).toBe(429);
  expect(harness.emulator.requests.slice(before).map((request) => request.protocol)).toEqual([
    'anthropic-messages',
  ]);
});

it('tool_choice may name a server tool, or be any with only server tools: sent to the upstream as asked', async () => {
  const { anthropic } = createClients(harness.server.url);
  for (const toolChoice of [{ type: 'tool', name: 'web_search' }, { type: 'any' }]) {
    harness.emulator.enqueue(searchReply);
    await anthropic.messages.create({
      model: 'up-anthropic',
      max_tokens: 200,
      messages: question,
      tools: [webSearch as never],
      tool_choice: toolChoice as never,
    });
    expect((harness.emulator.requests.at(-1)!.body as { tool_choice: unknown }).tool_choice).toMatchObject(
      toolChoice,
    );
  }
});

type Block = Record<string, unknown> & { type: string };
interface RecordedEvent {
  type: string;
  index: number;
  message: { content: Block[] };
  content_block: Block;
  delta: { type: string; citation?: unknown };
}

/** The blocks of a recorded Anthropic stream as its events build them (citations from their deltas). */
function recordedBlocks(file: string): Block[] {
  const blocks: Block[] = [];
  let message: Block[] = [];
  for (const line of readRecorded(file).split('\n')) {
    if (line.trim() === '') continue;
    const event = JSON.parse(line) as RecordedEvent;
    if (event.type === 'message_start') blocks.push(...(message = [...event.message.content]));
    if (event.type === 'content_block_start')
      blocks.push((message[event.index] = { ...event.content_block }));
    if (event.type === 'content_block_delta' && event.delta.type === 'citations_delta')
      ((message[event.index]!.citations ??= []) as unknown[]).push(event.delta.citation);
  }
  return blocks;
}
const recorded = (name: string) => join(recordedDir, 'anthropic', name);
const citationsOf = (blocks: ReadonlyArray<{ type: string }>) =>
  blocks.flatMap((block) =>
    block.type === 'text' ? [(block as { citations?: unknown }).citations ?? []] : [],
  );
const callersOf = (blocks: ReadonlyArray<{ type: string }>) =>
  blocks.flatMap((block) => (block.type === 'tool_use' ? [(block as { caller?: unknown }).caller] : []));

it('web search citations on recorded text blocks reach an Anthropic client, whole and as citations_delta events', async () => {
  const { anthropic } = createClients(harness.server.url);
  const request = { model: 'up-anthropic', max_tokens: 200, messages: question, tools: [webSearch as never] };
  const file = recorded('anthropic-web-search-tool.1.json');
  harness.emulator.enqueue({ type: 'replay', file, enforce: false });
  const message = await anthropic.messages.create(request);
  const expected = citationsOf((JSON.parse(readRecorded(file)) as { content: Block[] }).content);
  expect(expected.flat().length).toBeGreaterThan(0);
  expect(citationsOf(message.content)).toEqual(expected);
  const chunks = recorded('anthropic-web-search-tool.1.chunks.txt');
  harness.emulator.enqueue({ type: 'replay', file: chunks, enforce: false });
  const streamed = await anthropic.messages.stream(request).finalMessage();
  const streamedExpected = citationsOf(recordedBlocks(chunks));
  expect(streamedExpected.flat().length).toBe(14);
  expect(citationsOf(streamed.content)).toEqual(streamedExpected);
});

it('a tool call made by code execution keeps its caller, whole and streamed (programmatic tool calling)', async () => {
  const { anthropic } = createClients(harness.server.url);
  const request = { model: 'up-anthropic', max_tokens: 200, messages: question };
  const file = recorded('anthropic-programmatic-tool-calling.1.json');
  harness.emulator.enqueue({ type: 'replay', file, enforce: false });
  const message = await anthropic.messages.create(request);
  const expected = callersOf((JSON.parse(readRecorded(file)) as { content: Block[] }).content);
  expect(expected).toContainEqual(expect.objectContaining({ type: 'code_execution_20250825' }));
  expect(callersOf(message.content)).toEqual(expected);
  const chunks = recorded('anthropic-programmatic-tool-calling.1.chunks.txt');
  harness.emulator.enqueue({ type: 'replay', file: chunks, enforce: false });
  const streamed = await anthropic.messages.stream(request).finalMessage();
  const streamedExpected = callersOf(recordedBlocks(chunks));
  expect(streamedExpected.length).toBeGreaterThan(1);
  expect(callersOf(streamed.content)).toEqual(streamedExpected);
});

it('the next turn carries a text’s citations and a call’s caller back to the upstream', async () => {
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Done.' }] });
  const citation = {
    type: 'web_search_result_location',
    cited_text: 'Sunny all week.',
    url: 'https://example.com/paris',
    title: 'Paris weather',
    encrypted_index: 'Eo8BCioIAhgBIiQ',
  };
  const caller = { type: 'code_execution_20250825', tool_id: 'srvtoolu_01B' };
  const { anthropic } = createClients(harness.server.url);
  await anthropic.messages.create({
    model: 'up-anthropic',
    max_tokens: 200,
    tools: [webSearch as never],
    messages: [
      ...question,
      {
        role: 'assistant',
        content: [
          serverCall,
          searchResult,
          { type: 'text', text: 'It is sunny in Paris.', citations: [citation] },
          { type: 'tool_use', id: 'toolu_01C', name: 'rollDie', input: {}, caller },
        ] as never,
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01C', content: '4' }] },
    ],
  });
  const sent = harness.emulator.requests.at(-1)!.body as {
    messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
  };
  const assistant = sent.messages.find((message) => message.role === 'assistant')!;
  expect(assistant.content[2]).toMatchObject({ type: 'text', citations: [citation] });
  expect(assistant.content[3]).toMatchObject({ type: 'tool_use', caller });
});
