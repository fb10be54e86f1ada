/** Every recorded Anthropic stream (`.chunks.txt`), replayed over the emulator through `stream()`. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../core/events.ts';
import type { FinishReason } from '../../core/finish-reason.ts';
import type { JsonObject } from '../../core/json.ts';
import type { CanonicalResponse } from '../../core/request.ts';
import type { Usage } from '../../core/usage.ts';
import { withRecordedTier } from '../../../test/support/fixtures.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import {
  collect,
  createTestAdapter,
  describeContent,
  fixture,
  fixtureNames,
  partsOf,
  textRequest,
} from './test-support.ts';

interface StreamExpectation {
  finish: [FinishReason, string | undefined];
  usage: Usage;
  /** `describeContent` of the response. */
  kinds: string;
  /** The first non-blank text part starts with this. */
  text: string;
  check?: (response: CanonicalResponse, events: StreamEvent[]) => void;
}

function usage(input: number, output: number, extra: Partial<Usage> = {}): Usage {
  return { input, cacheRead: 0, cacheWrite: 0, output, reasoning: 0, ...extra };
}

function customData(response: CanonicalResponse, kind: string, position = 0): JsonObject {
  const part = partsOf(response.content, 'custom').filter((custom) => custom.kind === kind)[position];
  expect(part?.provider).toBe('anthropic');
  return part?.data as JsonObject;
}

function toolInputs(response: CanonicalResponse): JsonObject[] {
  return partsOf(response.content, 'tool-call').map((call) => call.input);
}

const codeExecutionKinds =
  'text, custom:server_tool_use, custom:text_editor_code_execution_tool_result, text, custom:server_tool_use, custom:bash_code_execution_tool_result, text';

const streams: Record<string, StreamExpectation> = {
  'anthropic-advisor-20250301.1.chunks.txt': {
    finish: ['completed', 'end_turn'],
    // Per model (#18 point 12): the executor's iterations at top level, the Opus advisor's apart.
    usage: usage(4727, 3391, { byModel: { 'anthropic:claude-opus-4-7': usage(2728, 3880) } }),
    kinds: 'custom:server_tool_use, custom:advisor_tool_result, text',
    text: '# Concurrent Worker Pool in Go — Design',
    check(response) {
      expect(customData(response, 'server_tool_use')).toMatchObject({ name: 'advisor', input: {} });
      expect(customData(response, 'advisor_tool_result')).toMatchObject({
        content: { type: 'advisor_result' },
      });
    },
  },
  'anthropic-advisor-stop-reasons.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(10, 20),
    kinds:
      'custom:server_tool_use, custom:advisor_tool_result, custom:server_tool_use, custom:advisor_tool_result',
    text: '',
    check(response) {
      expect(customData(response, 'advisor_tool_result', 0).content).toEqual({
        type: 'advisor_result',
        text: 'Partial plaintext advice.',
        stop_reason: 'max_tokens',
      });
      expect(customData(response, 'advisor_tool_result', 1).content).toEqual({
        type: 'advisor_redacted_result',
        encrypted_content: 'opaque-encrypted-advice',
        stop_reason: 'end_turn',
      });
    },
  },
  'anthropic-clear-thinking.1.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(69, 53),
    kinds: 'reasoning, text',
    text: '925 ÷ 5 = 185',
    check(response, events) {
      const [reasoning] = partsOf(response.content, 'reasoning');
      expect(reasoning?.text).toBe(
        'The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185',
      );
      expect(reasoning?.signature).toMatch(/^EvQBCkYICxgCKkAxhD4N/);
      expect(reasoning?.provider).toBe('anthropic');
      const end = events.find((event) => event.type === 'reasoning-end');
      expect(end?.type === 'reasoning-end' && end.signature).toBe(reasoning?.signature);
      expect(response.metadata?.['anthropic.context_management']).toEqual({ applied_edits: [] });
    },
  },
  'anthropic-clear-tool-uses.1.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(859, 122),
    kinds: 'text',
    text: "\n\nHere's a comparison of the weather in",
    check(response) {
      expect(response.metadata?.['anthropic.context_management']).toEqual({ applied_edits: [] });
    },
  },
  'anthropic-code-execution-20250825.1.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(8050, 771),
    kinds: codeExecutionKinds,
    text: "I'll create a Python script to calculate",
    check(response) {
      expect(customData(response, 'server_tool_use', 0)).toMatchObject({
        name: 'text_editor_code_execution',
        input: { command: 'create' },
      });
      expect(customData(response, 'server_tool_use', 1).name).toBe('bash_code_execution');
      expect(customData(response, 'bash_code_execution_tool_result')).toMatchObject({
        content: { type: 'bash_code_execution_result', return_code: 0 },
      });
    },
  },
  'anthropic-code-execution-20250825.2.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(15696, 2479),
    kinds: `${codeExecutionKinds}, custom:server_tool_use, custom:bash_code_execution_tool_result, text`,
    text: "I'll help you create a Python script to",
    check(response) {
      expect(partsOf(response.content, 'custom')).toHaveLength(6);
      expect(response.metadata?.['anthropic.container']).toMatchObject({ id: expect.any(String) });
    },
  },
  'anthropic-code-execution-20250825.pptx-skill.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(320032, 5558),
    kinds:
      'text, custom:server_tool_use, custom:text_editor_code_execution_tool_result, text, custom:server_tool_use, custom:text_editor_code_execution_tool_result, text, custom:server_tool_use, custom:text_editor_code_execution_tool_result, custom:server_tool_use, custom:text_editor_code_execution_tool_result, custom:server_tool_use, custom:text_editor_code_execution_tool_result, custom:server_tool_use, custom:text_editor_code_execution_tool_result, text, custom:server_tool_use, custom:text_editor_code_execution_tool_result, text, custom:server_tool_use, custom:bash_code_execution_tool_result, text, custom:server_tool_use, custom:text_editor_code_execution_tool_result, custom:server_tool_use, custom:bash_code_execution_tool_result, text, custom:server_tool_use, custom:text_editor_code_execution_tool_result, custom:server_tool_use, custom:bash_code_execution_tool_result, text, custom:server_tool_use, custom:text_editor_code_execution_tool_result, custom:server_tool_use, custom:bash_code_execution_tool_result, text, custom:server_tool_use, custom:bash_code_execution_tool_result, text, custom:server_tool_use, custom:bash_code_execution_tool_result, text',
    text: 'I need to create a PowerPoint presentati',
    check(response) {
      for (const call of partsOf(response.content, 'custom').filter(
        (part) => part.kind === 'server_tool_use',
      )) {
        expect(Object.keys((call.data as JsonObject).input as JsonObject)).toContain('command');
      }
    },
  },
  'anthropic-code-execution-20260120-prompt-cache.1.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(6, 198, { cacheRead: 6289, cacheWrite: 3337 }),
    kinds:
      'custom:server_tool_use, custom:bash_code_execution_tool_result, custom:server_tool_use, custom:bash_code_execution_tool_result, text',
    text: 'The sum of the squares of the numbers 1',
    check(response) {
      const input = customData(response, 'server_tool_use').input as JsonObject;
      expect(input.command).toMatch(/^for n in \$\(seq 1 12\); do echo /);
    },
  },
  'anthropic-code-execution-file-upload.1.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(11505, 1103),
    kinds:
      'text, custom:server_tool_use, custom:text_editor_code_execution_tool_result, text, custom:server_tool_use, custom:text_editor_code_execution_tool_result, custom:server_tool_use, custom:bash_code_execution_tool_result, text',
    text: "I'll analyze the CSV data for you. Let m",
    check(response) {
      const view = customData(response, 'text_editor_code_execution_tool_result').content as JsonObject;
      expect(view).toMatchObject({ type: 'text_editor_code_execution_view_result', file_type: 'text' });
      expect(view.content).toMatch(/^month,revenue,expenses,profit\n/);
    },
  },
  'anthropic-combined-context-editing.1.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(50, 485),
    kinds: 'reasoning, text',
    text: '# 25 × 37\n\nLet me break this down step b',
    check(response) {
      const [reasoning] = partsOf(response.content, 'reasoning');
      expect(reasoning?.signature).toMatch(/^EtQFCkYICxgCKkC6mX3q/);
      expect(reasoning?.text.length).toBeGreaterThan(0);
    },
  },
  'anthropic-compaction.1.chunks.txt': {
    finish: ['completed', 'end_turn'],
    // Billed as the sum of usage.iterations (compaction + message), not the top-level 612.
    usage: usage(60997, 3341),
    kinds: 'custom:compaction, text',
    text: 'Based on the conversation history, you a',
    check(response) {
      const compaction = customData(response, 'compaction');
      expect(Object.keys(compaction)).toEqual(['type', 'content']);
      expect(compaction.content).toMatch(/^## Summary of Conversation\n\n### Task Context\n/);
      expect(response.metadata?.['anthropic.usage_iterations']).toHaveLength(2);
    },
  },
  'anthropic-fallback.chunks.txt': {
    finish: ['completed', 'end_turn'],
    // Per model: the fallback model (the response's) at top level, the replaced model's attempt apart.
    usage: usage(412, 264, { byModel: { 'anthropic:claude-fable-5': usage(408, 0) } }),
    kinds: 'custom:fallback, text',
    text: 'The printing press was invented by Johan',
    check(response) {
      expect(customData(response, 'fallback')).toEqual({
        type: 'fallback',
        from: { model: 'claude-fable-5' },
        to: { model: 'claude-opus-4-8' },
      });
      expect(response.metadata?.['anthropic.usage_iterations']).toHaveLength(2);
    },
  },
  'anthropic-json-other-tool.1.chunks.txt': {
    finish: ['tool-call', 'tool_use'],
    usage: usage(843, 28),
    kinds: 'tool-call:weather',
    text: '',
    check(response) {
      expect(toolInputs(response)).toEqual([{ location: 'San Francisco' }]);
    },
  },
  'anthropic-json-output-format.1.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(313, 305),
    kinds: 'text',
    text: '{"characters":[{"name":"Theron Ironheart',
    check(response) {
      const [text] = partsOf(response.content, 'text');
      expect(JSON.parse(text?.text ?? '').characters.length).toBeGreaterThan(0);
    },
  },
  'anthropic-json-tool.1.chunks.txt': {
    finish: ['tool-call', 'tool_use'],
    usage: usage(849, 47),
    kinds: 'tool-call:json',
    text: '',
    check(response, events) {
      const expected = { elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] };
      expect(toolInputs(response)).toEqual([expected]);
      const fragments = events.flatMap((event) => (event.type === 'tool-call-delta' ? [event.delta] : []));
      expect(JSON.parse(fragments.join(''))).toEqual(expected);
    },
  },
  'anthropic-json-tool.2.chunks.txt': {
    finish: ['tool-call', 'tool_use'],
    usage: usage(849, 47),
    kinds: 'text, tool-call:json',
    text: "I'll invoke the JSON response tool.",
    check(response) {
      expect(toolInputs(response)).toEqual([
        { elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] },
      ]);
    },
  },
  'anthropic-mcp.1.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(1250, 83),
    kinds: 'custom:mcp_tool_use, custom:mcp_tool_result, text',
    text: 'The echo tool responded back with: **hel',
    check(response) {
      expect(customData(response, 'mcp_tool_use')).toMatchObject({
        name: 'echo',
        server_name: 'echo',
        input: { message: 'hello world' },
      });
      expect(customData(response, 'mcp_tool_result')).toMatchObject({
        is_error: false,
        content: [{ type: 'text', text: 'Tool echo: hello world' }],
      });
    },
  },
  'anthropic-message-delta-input-tokens.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(61, 2),
    kinds: 'text',
    text: 'pong',
    check(_response, events) {
      const usages = events.flatMap((event) => (event.type === 'usage' ? [event.usage.input] : []));
      expect(usages).toEqual([43, 61]);
    },
  },
  'anthropic-programmatic-tool-calling.1.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(7920, 922),
    kinds: 'text, custom:server_tool_use, tool-call:rollDie×14, custom:code_execution_tool_result, text',
    text: "I'll help you simulate this game between",
    check(response) {
      const calls = partsOf(response.content, 'tool-call');
      for (const call of calls) {
        expect(call.metadata?.['anthropic.caller']).toEqual({
          type: 'code_execution_20250825',
          tool_id: 'srvtoolu_01MzSrFWsmzBdcoQkGWLyRjK',
        });
      }
      expect(calls.map((call) => call.input.player).slice(0, 4)).toEqual([
        'player1',
        'player2',
        'player1',
        'player2',
      ]);
      expect(response.metadata?.['anthropic.message_ids']).toHaveLength(15);
    },
  },
  'anthropic-refusal.chunks.txt': {
    finish: ['content-filter', 'refusal'],
    usage: usage(18, 5),
    kinds: '',
    text: '',
    check(response) {
      expect(response.metadata?.['anthropic.stop_details']).toMatchObject({
        type: 'refusal',
        category: 'cyber',
      });
    },
  },
  'anthropic-text.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(12, 30),
    kinds: 'text',
    text: "Hello! I'm doing well, thank you for ask",
    check(response) {
      expect(response.responseId).toBe('msg_01QC4g3HwBThD4BaNtBckFDJ');
      expect(response.model).toBe('anthropic:claude-sonnet-4-5-20250929');
      expect(partsOf(response.content, 'text')[0]?.text).toBe(
        "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
      );
    },
  },
  'anthropic-tool-no-args.chunks.txt': {
    finish: ['tool-call', 'tool_use'],
    usage: usage(565, 48),
    kinds: 'text, tool-call:updateIssueList',
    text: "I'll update the issue list for you.",
    check(response, events) {
      expect(toolInputs(response)).toEqual([{}]);
      expect(events.some((event) => event.type === 'tool-call-delta')).toBe(false);
    },
  },
  'anthropic-tool-search-bm25.1.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(2670, 199),
    kinds: 'text, custom:server_tool_use, custom:tool_search_tool_result, text, tool-call:get_weather, text',
    text: "I'll search for a weather-related tool t",
    check(response) {
      expect(customData(response, 'server_tool_use').name).toBe('tool_search_tool_bm25');
      expect(customData(response, 'tool_search_tool_result')).toMatchObject({
        content: { type: 'tool_search_tool_search_result' },
      });
    },
  },
  'anthropic-tool-search-deferred-bm25.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(3916, 485),
    kinds:
      'text, tool-call:readNoteTree, custom:server_tool_use, custom:tool_search_tool_result, text, tool-call:executeEditorOperation, text',
    text: "I'll help you with this task. Let me sta",
    check(response) {
      expect(toolInputs(response)[0]).toEqual({ noteId: 'd10aa585-982b-4bd9-984e-420f9b3717f7' });
      expect(customData(response, 'server_tool_use').input).toEqual({
        query: 'add bullet point insert text editor',
        limit: 5,
      });
    },
  },
  'anthropic-tool-search-deferred-regex.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(4181, 504),
    kinds:
      'text, tool-call:readNoteTree, custom:server_tool_use, custom:tool_search_tool_result, text, tool-call:executeEditorOperation, text',
    text: "I'll help you with this task. Let me sta",
    check(response) {
      expect(customData(response, 'server_tool_use').name).toBe('tool_search_tool_regex');
      expect(toolInputs(response)[1]).toMatchObject({ noteId: 'd10aa585-982b-4bd9-984e-420f9b3717f7' });
    },
  },
  'anthropic-tool-search-regex.1.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(2752, 230),
    kinds: 'custom:server_tool_use, custom:tool_search_tool_result, text, tool-call:get_temp_data, text',
    text: 'Great! I found a weather tool. Let me ge',
    check(response) {
      expect(customData(response, 'server_tool_use').caller).toEqual({ type: 'direct' });
      expect(partsOf(response.content, 'tool-call')[0]?.metadata).toBeUndefined();
    },
  },
  'anthropic-web-fetch-tool-20260209.1.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(7172, 144),
    kinds: 'custom:server_tool_use×2, custom:web_fetch_tool_result, custom:code_execution_tool_result, text',
    text: 'The page at **example.com** is a simple',
    check(response) {
      expect(customData(response, 'server_tool_use', 0).name).toBe('code_execution');
      expect(customData(response, 'server_tool_use', 1)).toMatchObject({
        name: 'web_fetch',
        input: { url: 'https://example.com' },
      });
    },
  },
  'anthropic-web-fetch-tool.1.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(4230, 446),
    kinds: 'text, custom:server_tool_use, custom:web_fetch_tool_result, text',
    text: "I'll fetch the content from that Wikiped",
    check(response) {
      expect(customData(response, 'server_tool_use').input).toEqual({
        url: 'https://en.wikipedia.org/wiki/Maglemosian_culture',
      });
      expect(customData(response, 'web_fetch_tool_result')).toMatchObject({
        content: { type: 'web_fetch_result', content: { type: 'document', title: 'Maglemosian culture' } },
      });
    },
  },
  'anthropic-web-search-tool.1.chunks.txt': {
    finish: ['completed', 'end_turn'],
    // message_delta's `server_tool_use.web_search_requests: 1` (message_start has none).
    usage: usage(15665, 795, { webSearches: 1 }),
    kinds: 'custom:server_tool_use, custom:web_search_tool_result, text×19',
    text: 'Based on my search results, here are the',
    check(response, events) {
      expect(customData(response, 'server_tool_use').input).toEqual({
        query: 'tech news today September 26 2025',
      });
      expect(customData(response, 'web_search_tool_result').content).toHaveLength(10);
      const cited = partsOf(response.content, 'text').filter(
        (text) => text.metadata?.['anthropic.citations'],
      );
      expect(cited.length).toBeGreaterThan(0);
      expect(cited[0]?.metadata?.['anthropic.citations']).toMatchObject([
        { type: 'web_search_result_location', url: expect.stringContaining('apple.com') },
        { type: 'web_search_result_location' },
        { type: 'web_search_result_location' },
      ]);
      const citedEnds = events.filter((event) => event.type === 'text-end' && event.metadata !== undefined);
      expect(citedEnds).toHaveLength(cited.length);
    },
  },
  'duplicate-message-start.chunks.txt': {
    finish: ['completed', 'end_turn'],
    usage: usage(17, 227),
    kinds: 'text',
    text: 'Hello, World!',
    check(response, events) {
      expect(events.filter((event) => event.type === 'message-start')).toHaveLength(1);
      expect(response.responseId).toBe('msg_dup');
    },
  },
};

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator.close();
});

function firstText(response: CanonicalResponse): string {
  return partsOf(response.content, 'text').find((part) => part.text.trim() !== '')?.text ?? '';
}

describe('recorded Anthropic streams over the emulator', () => {
  it('covers every .chunks.txt file', () => {
    const chunkFiles = fixtureNames().filter((name) => name.endsWith('.chunks.txt'));
    expect(Object.keys(streams).concat('spliced-message-start.chunks.txt').sort()).toEqual(chunkFiles);
  });

  it.each(Object.entries(streams))('%s', async (name, expected) => {
    emulator.enqueue({ type: 'replay', file: fixture(name) });
    const adapter = createTestAdapter(emulator);
    const { events, error, response } = await collect(adapter.stream(textRequest('replay')));
    expect(error).toBeUndefined();
    assertStreamInvariants(events);
    if (response === undefined) throw new Error('no finish event');
    expect([response.finishReason, response.rawFinishReason]).toEqual(expected.finish);
    expect(response.usage).toEqual(withRecordedTier(expected.usage, fixture(name)));
    expect(describeContent(response.content)).toBe(expected.kinds);
    expect(firstText(response).startsWith(expected.text)).toBe(true);
    expected.check?.(response, events);
  });

  it('spliced-message-start.chunks.txt: fails with stream_spliced and keeps the first generation', async () => {
    emulator.enqueue({ type: 'replay', file: fixture('spliced-message-start.chunks.txt') });
    const adapter = createTestAdapter(emulator);
    const { events, error, response } = await collect(adapter.stream(textRequest('replay')));
    assertStreamInvariants(events);
    expect(error).toMatchObject({ name: 'NetworkError', providerCode: 'stream_spliced', retryable: true });
    expect(response?.finishReason).toBe('error');
    expect(response?.responseId).toBe('msg_first');
    expect(describeContent(response?.content ?? [])).toBe('reasoning, tool-call:test-tool');
    expect(partsOf(response?.content ?? [], 'reasoning')[0]?.signature).toBe('sig-first');
    expect(toolInputs(response as CanonicalResponse)).toEqual([{ value: 'Spark' }]);
    // The input was cut by the splice: repaired, and marked so nothing runs it as the model's.
    const call = partsOf(response?.content ?? [], 'tool-call')[0];
    expect(call).toMatchObject({
      incomplete: true,
      metadata: { 'switchyard.raw_input': expect.any(String) },
    });
    expect(events.find((event) => event.type === 'tool-call-end')).toMatchObject({ incomplete: true });
    expect(JSON.stringify(response)).not.toContain('sig-second');
  });
});
