/** Prompt-cache breakpoints: the caller's objects, TTL order, deferred tools and the limit of 4. */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../core/json.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { Item, Part } from '../../core/transcript.ts';
import type { WireMessage } from './api.ts';
import { applyCacheBreakpoints, countCacheBreakpoints, maxCacheBreakpoints } from './cache.ts';
import { buildTestRequest as build } from './test-support.ts';

function user(...parts: Part[]): Item {
  return { kind: 'user', parts };
}

function text(value: string): Part {
  return { type: 'text', text: value };
}

/** A verbatim Anthropic block carrying its own marker. */
function marked(ttl?: '1h'): Part {
  const cache_control: JsonObject = ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl };
  return {
    type: 'custom',
    provider: 'anthropic',
    kind: 'search_result',
    data: { type: 'search_result', source: 'kb', title: 't', content: [], cache_control },
  };
}

/** The cache markers of a body, in prompt order, as `where:ttl`. */
function markers(body: JsonObject): string[] {
  const found: string[] = [];
  const note = (where: string, value: unknown) => {
    const marker = (value as { cache_control?: { ttl?: string } }).cache_control;
    if (marker !== undefined) found.push(`${where}:${marker.ttl ?? '5m'}`);
  };
  for (const tool of (body.tools as JsonObject[] | undefined) ?? []) note(`tool ${tool.name}`, tool);
  if (Array.isArray(body.system)) for (const block of body.system) note('system', block);
  for (const [index, message] of (body.messages as unknown as WireMessage[]).entries())
    for (const block of message.content) note(`message ${index} ${block.type}`, block);
  note('top level', body);
  return found;
}

const system: Item = { kind: 'system', parts: [text('You are terse.')] };
const tools: CanonicalRequest['tools'] = [{ name: 'lookup', inputSchema: { type: 'object' } }];

describe('cache breakpoints and the caller’s objects', () => {
  it('never writes cache_control into the caller’s provider tools', () => {
    const serverTools = [{ type: 'web_search_20250305', name: 'web_search' }];
    const request = {
      transcript: [user(text('hi'))],
      providerOptions: { anthropic: { tools: serverTools } },
    };
    build({ ...request, cache: {} });
    expect(serverTools).toEqual([{ type: 'web_search_20250305', name: 'web_search' }]);
    const hour = build({ ...request, cache: { ttl: '1h' } });
    expect(markers(hour.body)).toEqual(['tool web_search:1h', 'message 0 text:1h']);
    expect(build(request).body.tools).toEqual([{ type: 'web_search_20250305', name: 'web_search' }]);
  });

  it('never modifies the arrays and blocks it is given', () => {
    const block = { type: 'text' as const, text: 'q' };
    const message: WireMessage = { role: 'user', content: [block] };
    const tool = { name: 'a', input_schema: {} };
    const body = { tools: [tool], messages: [message] };
    applyCacheBreakpoints(body, { ttl: '1h' });
    expect(markers(body as never)).toEqual(['tool a:1h', 'message 0 text:1h']);
    expect([tool, block, message.content]).toEqual([
      { name: 'a', input_schema: {} },
      { type: 'text', text: 'q' },
      [block],
    ]);
  });
});

describe('cache TTL order (a 1h marker may not follow a 5m one)', () => {
  it('lowers new markers after a caller’s 5-minute marker to 5m, with a WARN', () => {
    const { body, warnings } = build({
      transcript: [
        system,
        user(marked(), text('first')),
        { kind: 'assistant', parts: [text('ok')] },
        user(text('q')),
      ],
      tools,
      cache: { ttl: '1h' },
    });
    expect(markers(body)).toEqual([
      'tool lookup:1h',
      'system:1h',
      'message 0 search_result:5m',
      'message 2 text:5m',
    ]);
    expect(warnings).toMatchObject([
      { message: 'adjusted the cache ttl', fields: { adapter: 'anthropic', requested: '1h', sent: '5m' } },
    ]);
  });

  it('uses 5m for every new marker when a caller’s tool carries a 5-minute marker', () => {
    const { body } = build({
      transcript: [system, user(text('q'))],
      providerOptions: {
        anthropic: {
          tools: [{ type: 'web_search_20250305', name: 'web_search', cache_control: { type: 'ephemeral' } }],
        },
      },
      tools,
      cache: { ttl: '1h' },
    });
    // The last tool already carries a marker: none is added there.
    expect(markers(body)).toEqual(['tool web_search:5m', 'system:5m', 'message 0 text:5m']);
  });

  it('raises new markers before a caller’s 1-hour marker to 1h', () => {
    const { body } = build({
      transcript: [
        system,
        user(marked('1h'), text('first')),
        { kind: 'assistant', parts: [text('ok')] },
        user(text('q')),
      ],
      tools,
      cache: {},
    });
    expect(markers(body)).toEqual([
      'tool lookup:1h',
      'system:1h',
      'message 0 search_result:1h',
      'message 2 text:5m',
    ]);
  });
});

describe('cache breakpoints on tools', () => {
  it('puts the tool marker on the last tool without defer_loading', () => {
    const { body } = build({
      transcript: [user(text('hi'))],
      cache: {},
      providerOptions: {
        anthropic: {
          tools: [
            { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' },
            { name: 'executeEditorOperation', input_schema: { type: 'object' }, defer_loading: true },
          ],
        },
      },
    });
    expect(body.tools).toMatchInlineSnapshot(`
      [
        {
          "cache_control": {
            "type": "ephemeral",
          },
          "name": "tool_search_tool_regex",
          "type": "tool_search_tool_regex_20251119",
        },
        {
          "defer_loading": true,
          "input_schema": {
            "type": "object",
          },
          "name": "executeEditorOperation",
        },
      ]
    `);
  });

  it('marks no tool when every tool is deferred', () => {
    const deferred = { name: 'later', input_schema: { type: 'object' }, defer_loading: true };
    const { body } = build({
      transcript: [user(text('hi'))],
      cache: {},
      providerOptions: { anthropic: { tools: [deferred] } },
    });
    expect(markers(body)).toEqual(['message 0 text:5m']);
  });
});

describe('the limit of 4 breakpoints', () => {
  it('counts a top-level cache_control from the body options toward the limit', () => {
    const { body } = build({
      transcript: [system, user(marked(), text('q'))],
      tools,
      cache: {},
      providerOptions: { anthropic: { body: { cache_control: { type: 'ephemeral' } } } },
    });
    expect(countCacheBreakpoints(body as never)).toBe(maxCacheBreakpoints);
    expect(markers(body)).toEqual([
      'tool lookup:5m',
      'system:5m',
      'message 0 search_result:5m',
      'top level:5m',
    ]);
  });

  it('counts markers in body fields that replace the converted ones, without modifying them', () => {
    const marker = { type: 'ephemeral' };
    const bodyTools = [
      { name: 'a', input_schema: { type: 'object' }, cache_control: marker },
      { name: 'b', input_schema: { type: 'object' }, cache_control: marker },
    ];
    const { body } = build({
      transcript: [system, user(text('q'))],
      tools,
      cache: {},
      providerOptions: { anthropic: { body: { tools: bodyTools } } },
    });
    expect(markers(body)).toEqual(['tool a:5m', 'tool b:5m', 'system:5m', 'message 0 text:5m']);
    expect(bodyTools[1]).toEqual({ name: 'b', input_schema: { type: 'object' }, cache_control: marker });
  });
});
