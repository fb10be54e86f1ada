/** Every recorded Anthropic message (`.json`), served by the emulator through `complete()`, and sent back. */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession } from '../../core/adapter.ts';
import type { FinishReason } from '../../core/finish-reason.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import type { CanonicalResponse } from '../../core/request.ts';
import type { Usage } from '../../core/usage.ts';
import { withRecordedTier } from '../../../test/support/fixtures.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { buildRequest } from './request.ts';
import {
  createTestAdapter,
  createTestContext,
  describeContent,
  fixture,
  fixtureNames,
  partsOf,
  textRequest,
} from './test-support.ts';

interface MessageExpectation {
  finish: [FinishReason, string];
  usage: Usage;
  kinds: string;
  text: string;
  check?: (response: CanonicalResponse) => void;
}

function usage(input: number, output: number, extra: Partial<Usage> = {}): Usage {
  return { input, cacheRead: 0, cacheWrite: 0, output, reasoning: 0, ...extra };
}

function customData(response: CanonicalResponse, kind: string, position = 0): JsonObject {
  return partsOf(response.content, 'custom').filter((part) => part.kind === kind)[position]
    ?.data as JsonObject;
}

function toolInputs(response: CanonicalResponse): JsonObject[] {
  return partsOf(response.content, 'tool-call').map((call) => call.input);
}

const codeExecutionKinds =
  'text, custom:server_tool_use, custom:text_editor_code_execution_tool_result, text, custom:server_tool_use, custom:bash_code_execution_tool_result, text';
const fetchKinds = 'text, custom:server_tool_use, custom:web_fetch_tool_result, text';
const advisorKinds = 'custom:server_tool_use, custom:advisor_tool_result';

const messages: Record<string, MessageExpectation> = {
  'anthropic-advisor-20260301.1.json': {
    finish: ['completed', 'end_turn'],
    // Per model (#18 point 12): the executor's iterations at top level, the Opus advisor's apart.
    usage: usage(2414, 3200, { byModel: { 'anthropic:claude-opus-4-7': usage(2728, 874) } }),
    kinds: `${advisorKinds}, text`,
    text: 'Great guidance. Here is the full design',
    check(response) {
      expect(response.metadata?.['anthropic.usage_iterations']).toMatchObject([
        { type: 'message' },
        { type: 'advisor_message' },
        { type: 'message' },
      ]);
    },
  },
  'anthropic-advisor-stop-reasons.json': {
    finish: ['completed', 'end_turn'],
    usage: usage(10, 20),
    kinds: `${advisorKinds}, ${advisorKinds}`,
    text: '',
    check(response) {
      expect(customData(response, 'advisor_tool_result', 1).content).toMatchObject({
        type: 'advisor_redacted_result',
        encrypted_content: 'opaque-encrypted-advice',
      });
    },
  },
  'anthropic-claude-opus-5-reasoning-high.1.json': {
    finish: ['completed', 'end_turn'],
    usage: usage(51, 1699, { reasoning: 139 }),
    kinds: 'reasoning, text',
    text: '## Step 1: Set up the problem',
    check(response) {
      const [reasoning] = partsOf(response.content, 'reasoning');
      expect(reasoning?.text).toMatch(/^I need to find all roots of this cubic polynomial/);
      expect(reasoning?.signature).toMatch(/^CAISqwQKhwEIEBgCKkAc/);
      expect(response.model).toBe('anthropic:claude-opus-5');
    },
  },
  'anthropic-clear-thinking.1.json': {
    finish: ['completed', 'end_turn'],
    usage: usage(69, 33),
    kinds: 'reasoning, text',
    text: '925 ÷ 5 = 185',
    check(response) {
      expect(partsOf(response.content, 'reasoning')[0]).toMatchObject({
        text: '925 divided by 5 = 185',
        signature: expect.stringMatching(/^Er4BCkYICxgCKkCoxqLH/),
        provider: 'anthropic',
      });
    },
  },
  'anthropic-clear-tool-uses.1.json': {
    finish: ['completed', 'end_turn'],
    usage: usage(859, 132),
    kinds: 'text',
    text: "\n\nHere's a comparison of the weather in",
  },
  'anthropic-code-execution-20250825.1.json': {
    finish: ['completed', 'end_turn'],
    usage: usage(7881, 608),
    kinds: codeExecutionKinds,
    text: "I'll create a Python script to calculate",
    check(response) {
      expect(customData(response, 'server_tool_use', 1).input).toEqual({
        command: 'python /tmp/fibonacci.py',
      });
    },
  },
  'anthropic-code-execution-20250825.2.json': {
    finish: ['completed', 'end_turn'],
    usage: usage(12546, 1359),
    kinds: `${codeExecutionKinds}, custom:server_tool_use, custom:bash_code_execution_tool_result, text`,
    text: "I'll help you create a Python script to",
    check(response) {
      expect(customData(response, 'server_tool_use', 2).input).toEqual({
        command: 'cp /tmp/fibonacci_calculator.py $OUTPUT_DIR/fibonacci_calculator.py',
      });
    },
  },
  'anthropic-code-execution-20250825.pptx-skill.json': {
    finish: ['completed', 'end_turn'],
    usage: usage(950648, 13856),
    kinds: '', // checked by counts below: the run-length summary is 70 runs long
    text: "I'll help you create a presentation abou",
    check(response) {
      const kinds = partsOf(response.content, 'custom').map((part) => part.kind);
      expect(kinds.filter((kind) => kind === 'server_tool_use')).toHaveLength(61);
      expect(kinds.filter((kind) => kind === 'text_editor_code_execution_tool_result')).toHaveLength(46);
      expect(kinds.filter((kind) => kind === 'bash_code_execution_tool_result')).toHaveLength(15);
      expect(partsOf(response.content, 'text')).toHaveLength(24);
    },
  },
  'anthropic-code-execution-file-upload.1.json': {
    finish: ['completed', 'end_turn'],
    usage: usage(7451, 521),
    kinds: codeExecutionKinds,
    text: "I'll analyze the CSV data to calculate t",
    check(response) {
      expect(customData(response, 'server_tool_use').input).toEqual({
        command: 'view',
        path: '$INPUT_DIR/sample.csv',
      });
    },
  },
  'anthropic-combined-context-editing.1.json': {
    finish: ['completed', 'end_turn'],
    usage: usage(50, 418),
    kinds: 'reasoning, text',
    text: '# 25 × 37\n\nLet me break this down into e',
  },
  'anthropic-compaction.1.json': {
    finish: ['completed', 'end_turn'],
    // Billed as the sum of usage.iterations: 60,385 + 682 input, as Anthropic bills (not the top-level 682).
    usage: usage(61067, 1912),
    kinds: 'custom:compaction, text',
    text: 'Based on our conversation history, you h',
    check(response) {
      expect(customData(response, 'compaction').content).toMatch(/^## Summary of Conversation/);
    },
  },
  'anthropic-fallback.json': {
    finish: ['completed', 'end_turn'],
    // Per model: the fallback model (the response's) at top level, the replaced model's attempt apart.
    usage: usage(412, 264, { byModel: { 'anthropic:claude-fable-5': usage(408, 0) } }),
    kinds: 'custom:fallback, text',
    text: 'The printing press was invented by Johan',
    check(response) {
      expect(response.model).toBe('anthropic:claude-opus-4-8');
      expect(customData(response, 'fallback').to).toEqual({ model: 'claude-opus-4-8' });
    },
  },
  'anthropic-json-other-tool.1.json': {
    finish: ['tool-call', 'tool_use'],
    usage: usage(843, 28),
    kinds: 'tool-call:weather',
    text: '',
    check(response) {
      expect(toolInputs(response)).toEqual([{ location: 'San Francisco' }]);
    },
  },
  'anthropic-json-output-format.1.json': {
    finish: ['completed', 'end_turn'],
    usage: usage(371, 629),
    kinds: 'text',
    text: '{"recipe":{"name":"Classic Lasagna","ing',
    check(response) {
      const recipe = JSON.parse(partsOf(response.content, 'text')[0]?.text ?? '').recipe;
      expect(recipe.name).toBe('Classic Lasagna');
      expect(recipe.ingredients.length).toBeGreaterThan(5);
    },
  },
  'anthropic-json-tool.1.json': {
    finish: ['tool-call', 'tool_use'],
    usage: usage(1151, 87),
    kinds: 'tool-call:json',
    text: '',
    check(response) {
      expect(toolInputs(response)[0]?.elements).toContainEqual({
        location: 'San Francisco',
        temperature: -5,
        condition: 'snowy',
      });
    },
  },
  'anthropic-mcp.1.json': {
    finish: ['completed', 'end_turn'],
    usage: usage(1250, 88),
    kinds: 'custom:mcp_tool_use, custom:mcp_tool_result, text',
    text: 'The echo tool responded back with: **"he',
    check(response) {
      expect(customData(response, 'mcp_tool_use')).toMatchObject({ id: 'mcptoolu_015oTj2fXVKLrDohFetJd5UL' });
      expect(response.metadata?.['anthropic.server_tool_use']).toEqual({
        web_search_requests: 0,
        web_fetch_requests: 0,
      });
    },
  },
  'anthropic-memory-20250818.1.json': {
    finish: ['tool-call', 'tool_use'],
    usage: usage(1614, 69),
    kinds: 'tool-call:memory',
    text: '',
    check(response) {
      expect(toolInputs(response)).toEqual([{ command: 'view', path: '/memories' }]);
    },
  },
  'anthropic-programmatic-tool-calling.1.json': {
    finish: ['completed', 'end_turn'],
    usage: usage(4243, 229),
    kinds: 'text, custom:server_tool_use, tool-call:rollDie×4, custom:code_execution_tool_result, text',
    text: "I'll help you simulate this dice game be",
    check(response) {
      expect(toolInputs(response).map((input) => input.player)).toEqual([
        'player2',
        'player1',
        'player1',
        'player2',
      ]);
      expect(partsOf(response.content, 'tool-call')[0]?.metadata?.['anthropic.caller']).toMatchObject({
        type: 'code_execution_20250825',
      });
    },
  },
  'anthropic-refusal-no-details.json': {
    finish: ['content-filter', 'refusal'],
    usage: usage(18, 5),
    kinds: '',
    text: '',
    check(response) {
      expect(response.metadata?.['anthropic.stop_details']).toBeUndefined();
    },
  },
  'anthropic-refusal.json': {
    finish: ['content-filter', 'refusal'],
    usage: usage(18, 5),
    kinds: '',
    text: '',
    check(response) {
      expect(response.metadata?.['anthropic.stop_details']).toMatchObject({
        category: 'cyber',
        recommended_model: 'claude-fable-5',
      });
    },
  },
  'anthropic-text.json': {
    finish: ['completed', 'end_turn'],
    usage: usage(12, 29),
    kinds: 'text',
    text: "Hello! I'm doing well, thanks for asking",
    check(response) {
      expect(response.responseId).toBe('msg_01VdEjxAP5ahtHKrrRdNBteQ');
    },
  },
  'anthropic-tool-no-args.json': {
    finish: ['tool-call', 'tool_use'],
    usage: usage(602, 93),
    kinds: 'text, tool-call:updateIssueList',
    text: '<thinking>\nThe updateIssueList tool was',
    check(response) {
      expect(toolInputs(response)).toEqual([{}]);
    },
  },
  'anthropic-tool-search-bm25.1.json': {
    finish: ['tool-call', 'tool_use'],
    usage: usage(1631, 161),
    kinds: 'text, custom:server_tool_use, custom:tool_search_tool_result, text, tool-call:get_weather',
    text: "I'll search for a weather-related tool t",
    check(response) {
      expect(toolInputs(response)).toEqual([{ location: 'San Francisco, CA' }]);
    },
  },
  'anthropic-tool-search-deferred-bm25.2.json': {
    finish: ['tool-call', 'tool_use'],
    usage: usage(1398, 213),
    kinds: 'custom:tool_search_tool_result, text, tool-call:executeEditorOperation',
    text: 'Perfect! I can see the current structure',
  },
  'anthropic-tool-search-deferred-regex.2.json': {
    finish: ['tool-call', 'tool_use'],
    usage: usage(1520, 203),
    kinds: 'custom:tool_search_tool_result, text, tool-call:executeEditorOperation',
    text: 'Good! I can see the current note structu',
  },
  'anthropic-tool-search-regex.1.json': {
    finish: ['tool-call', 'tool_use'],
    usage: usage(1676, 184),
    kinds: 'custom:server_tool_use, custom:tool_search_tool_result, text, tool-call:get_temp_data',
    text: 'I found a tool to get temperature data!',
    check(response) {
      expect(toolInputs(response)).toEqual([{ location: 'San Francisco, CA', unit: 'fahrenheit' }]);
    },
  },
  'anthropic-web-fetch-tool-20260209.1.json': {
    finish: ['completed', 'end_turn'],
    usage: usage(7204, 162),
    kinds: 'custom:server_tool_use×2, custom:web_fetch_tool_result, custom:code_execution_tool_result, text',
    text: 'The page at **example.com** is a simple',
  },
  'anthropic-web-fetch-tool.1.json': {
    finish: ['completed', 'end_turn'],
    usage: usage(4234, 462),
    kinds: fetchKinds,
    text: "I'll fetch the Wikipedia page about Magl",
  },
  'anthropic-web-fetch-tool.2.json': {
    finish: ['completed', 'end_turn'],
    usage: usage(28638, 365),
    kinds: fetchKinds,
    text: "I'll fetch the PDF from the URL you prov",
  },
  'anthropic-web-fetch-tool.error.json': {
    finish: ['completed', 'end_turn'],
    usage: usage(1902, 214),
    kinds: fetchKinds,
    text: "I'll fetch the PDF document from the URL",
    check(response) {
      expect(customData(response, 'web_fetch_tool_result').content).toEqual({
        type: 'web_fetch_tool_result_error',
        error_code: 'unavailable',
      });
    },
  },
  'anthropic-web-search-tool.1.json': {
    finish: ['completed', 'end_turn'],
    // `server_tool_use.web_search_requests: 2`: the searches billed per search.
    usage: usage(27118, 600, { webSearches: 2 }),
    kinds:
      'custom:server_tool_use, custom:web_search_tool_result, text, custom:server_tool_use, custom:web_search_tool_result, text×7',
    text: 'Let me search for more specific tech new',
    check(response) {
      expect(customData(response, 'web_search_tool_result', 1).content).toEqual([]);
      const cited = partsOf(response.content, 'text').filter(
        (text) => text.metadata?.['anthropic.citations'],
      );
      expect(cited).toHaveLength(3);
    },
  },
};

/** The fixture's content as we must send it back: empty text skipped, null citations and direct callers omitted. */
function expectedWireContent(blocks: JsonObject[]): JsonValue[] {
  return blocks
    .filter((block) => !(block.type === 'text' && block.text === ''))
    .map((block) => {
      if (block.type === 'text') {
        const citations = block.citations;
        return Array.isArray(citations) && citations.length > 0
          ? { type: 'text', text: block.text as JsonValue, citations }
          : { type: 'text', text: block.text as JsonValue };
      }
      if (block.type === 'tool_use') {
        const { caller, ...rest } = block;
        return isJsonObject(caller) && caller.type !== 'direct' ? { ...rest, caller } : rest;
      }
      return block;
    });
}

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator.close();
});

describe('recorded Anthropic messages over the emulator', () => {
  it('covers every .json file', () => {
    expect(Object.keys(messages).sort()).toEqual(fixtureNames().filter((name) => name.endsWith('.json')));
  });

  it.each(Object.entries(messages))('%s', async (name, expected) => {
    emulator.enqueue({ type: 'replay', file: fixture(name) });
    const session = createSession();
    const adapter = createTestAdapter(emulator);
    const response = await adapter.complete(textRequest('replay'), { session });
    expect([response.finishReason, response.rawFinishReason]).toEqual(expected.finish);
    expect(response.usage).toEqual(withRecordedTier(expected.usage, fixture(name)));
    if (expected.kinds !== '' || response.content.length === 0)
      expect(describeContent(response.content)).toBe(expected.kinds);
    const first = partsOf(response.content, 'text').find((part) => part.text.trim() !== '')?.text ?? '';
    expect(first.startsWith(expected.text)).toBe(true);
    expected.check?.(response);

    // Sent back in the same session, the assistant turn reproduces the recorded content blocks.
    const recorded = JSON.parse(readFileSync(fixture(name), 'utf8')) as { content: JsonObject[] };
    const context = createTestContext({ session });
    const wire = buildRequest(
      textRequest('again', {
        transcript: [
          { kind: 'user', parts: [{ type: 'text', text: 'replay' }] },
          { kind: 'assistant', parts: response.content },
        ],
      }),
      context,
    );
    const sent = (wire.body.messages as Array<{ role: string; content: JsonValue[] }>)[1];
    if (recorded.content.length === 0) expect(sent).toBeUndefined();
    else expect(sent?.content).toEqual(expectedWireContent(recorded.content));
    expect(context.logger.entries).toEqual([]);
  });
});
