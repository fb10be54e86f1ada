/**
 * Cache points where the caller put its breakpoints: an Anthropic client's `cache_control` on a
 * static system block before a dynamic one (`cacheBreakpointKey`) becomes a `cachePoint` between
 * the two system blocks, not one after the joined text (which changes per request, so the cache
 * would never be read); at most 4 per request, as Bedrock allows.
 */
import { describe, expect, it } from 'vitest';
import { cacheBreakpointKey } from '../../core/metadata.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { Item, Part } from '../../core/transcript.ts';
import { checkConverseRequest } from '../../testing/emulator/rules/bedrock.ts';
import type { RecordedRequest } from '../../testing/emulator/types.ts';
import { capabilitiesFor } from './capabilities.ts';
import { buildRequest } from './request.ts';
import { createTestContext } from './test-support.ts';

const claude = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

const text = (value: string): Part => ({ type: 'text', text: value });
const marked = (value: string, ttl = '5m'): Part => ({
  type: 'text',
  text: value,
  metadata: { [cacheBreakpointKey]: ttl },
});
const user: Item = { kind: 'user', parts: [text('q')] };
const tools: CanonicalRequest['tools'] = [{ name: 'lookup', inputSchema: { type: 'object' } }];

function build(system: Part[], overrides: Partial<CanonicalRequest> = {}, model = claude) {
  const context = createTestContext('bedrock', model, capabilitiesFor(model));
  const canonical: CanonicalRequest = {
    model: `bedrock:${model}`,
    transcript: [{ kind: 'system', parts: system }, user],
    maxOutputTokens: 1024,
    cache: {},
    ...overrides,
  };
  const body = buildRequest(canonical, context).body as Record<string, unknown>;
  return { body, warnings: context.logger.entries.map((entry) => entry.message) };
}

/** Where the cache points are, in prompt order: `tools`, `system`, `message N`. */
function cachePoints(body: Record<string, unknown>): string[] {
  const found: string[] = [];
  const config = body.toolConfig as { tools: object[] } | undefined;
  for (const tool of config?.tools ?? []) if ('cachePoint' in tool) found.push('tools');
  for (const block of (body.system as object[] | undefined) ?? [])
    if ('cachePoint' in block) found.push('system');
  for (const [index, message] of (body.messages as Array<{ content: object[] }>).entries())
    for (const block of message.content) if ('cachePoint' in block) found.push(`message ${index}`);
  return found;
}

describe('Bedrock cache points at the caller’s breakpoints', () => {
  it('a marked static system block keeps its cache point before the dynamic block', () => {
    const { body } = build([marked('STATIC'), text('DYNAMIC time=22:00:01')], { tools });
    expect(body.system).toEqual([
      { text: 'STATIC' },
      { cachePoint: { type: 'default' } },
      { text: 'DYNAMIC time=22:00:01' },
    ]);
    expect(cachePoints(body)).toEqual(['system', 'message 0']);
  });

  it('unmarked parts between breakpoints are joined as before', () => {
    const { body } = build([text('a'), marked('b'), text('c'), text('d')]);
    expect(body.system).toEqual([
      { text: 'a\n\nb' },
      { cachePoint: { type: 'default' } },
      { text: 'c\n\nd' },
    ]);
  });

  it('without a marker: one system block and a cache point after it (unchanged)', () => {
    const { body } = build([text('a'), text('b')], { tools });
    expect(body.system).toEqual([{ text: 'a\n\nb' }, { cachePoint: { type: 'default' } }]);
    expect(cachePoints(body)).toEqual(['system', 'message 0']);
  });

  it('never more than 4: the latest system breakpoints first, then the last user turn', () => {
    const five = build(
      ['1', '2', '3', '4', '5'].map((value) => marked(value)),
      { tools },
    );
    expect(cachePoints(five.body)).toEqual(['system', 'system', 'system', 'system']);
    expect((five.body.system as object[])[0]).toEqual({ text: '1\n\n2' });
    expect(five.warnings).toContain('adjusted the cache markers');
    expect(five.warnings.filter((warning) => warning === 'adjusted the cache markers')).toHaveLength(2);
    const three = build([marked('1'), marked('2'), marked('3'), text('now')], { tools });
    expect(cachePoints(three.body)).toEqual(['system', 'system', 'system', 'message 0']);
    expect(three.warnings).not.toContain('adjusted the cache markers');
  });

  it('the tools get a cache point only when the system has none (a system point caches them too)', () => {
    const noSystem = build([], { tools });
    expect(cachePoints(noSystem.body)).toEqual(['tools', 'message 0']);
    const four = build([marked('1'), marked('2'), marked('3'), marked('4'), text('now')], { tools });
    expect(cachePoints(four.body)).toEqual(['system', 'system', 'system', 'system']);
    expect(four.warnings).toContain('adjusted the cache markers');
  });

  it('a model without prompt caching gets the instructions joined and no cache point', () => {
    const { body } = build([marked('STATIC'), text('DYNAMIC')], {}, 'anthropic.claude-3-haiku-20240307-v1:0');
    expect(body.system).toEqual([{ text: 'STATIC\n\nDYNAMIC' }]);
    expect(cachePoints(body)).toEqual([]);
  });

  it('what is sent passes the emulator’s cache point rules', () => {
    const { body } = build([marked('STATIC'), text('DYNAMIC')], { tools });
    expect(checkConverseRequest(converse(body))).toBeUndefined();
  });
});

function converse(body: Record<string, unknown>): RecordedRequest {
  return {
    method: 'POST',
    path: `/model/${encodeURIComponent(claude)}/converse`,
    query: {},
    headers: { authorization: 'Bearer bedrock-api-key' },
    body,
    protocol: 'bedrock-converse',
  };
}

describe('the emulator refuses cache points as Bedrock does', () => {
  const point = { cachePoint: { type: 'default' } };
  const refusal = (body: Record<string, unknown>) =>
    (checkConverseRequest(converse(body)) as { body?: { message?: string } } | undefined)?.body?.message;

  it('more than 4 in the request', () => {
    const system = [{ text: 'a' }, point, { text: 'b' }, point, { text: 'c' }, point];
    const messages = [{ role: 'user', content: [{ text: 'q' }, point] }];
    expect(refusal({ system, messages })).toBeUndefined();
    const config = { tools: [{ toolSpec: { name: 't', inputSchema: { json: {} } } }, point] };
    expect(refusal({ system, messages, toolConfig: config })).toMatch(/cache point/i);
  });

  it('one after a reasoning block', () => {
    const reasoning = { reasoningContent: { reasoningText: { text: 'hm', signature: 's' } } };
    const messages = [
      { role: 'user', content: [{ text: 'q' }] },
      { role: 'assistant', content: [reasoning, point] },
      { role: 'user', content: [{ text: 'more' }] },
    ];
    expect(refusal({ messages })).toMatch(/Cache point cannot be inserted after reasoning block/);
  });
});
