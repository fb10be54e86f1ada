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
import { capabilitiesFor, takesHourCache } from './capabilities.ts';
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

  it('a 1-hour breakpoint or cache request sends ttl: 1h where the model takes it', () => {
    const hour = { cachePoint: { type: 'default', ttl: '1h' } };
    const { body, warnings } = build([marked('STATIC', '1h'), text('DYNAMIC')], {
      cache: { ttl: '1h' },
      tools,
    });
    expect(body.system).toEqual([{ text: 'STATIC' }, hour, { text: 'DYNAMIC' }]);
    expect((body.messages as Array<{ content: object[] }>)[0]!.content.at(-1)).toEqual(hour);
    expect(warnings).toEqual([]);
    expect(checkConverseRequest(converse(body))).toBeUndefined();
    const plain = build([text('a')], { cache: { ttl: '1h' }, tools }).body;
    expect(plain.system).toEqual([{ text: 'a' }, hour]);
    const noSystem = build([], { cache: { ttl: '1h' }, tools }).body;
    expect((noSystem.toolConfig as { tools: object[] }).tools.at(-1)).toEqual(hour);
  });

  it('a 1-hour point after a 5-minute one is sent as 5 minutes, with a WARN', () => {
    const { body, warnings } = build([marked('A'), marked('B', '1h'), text('DYNAMIC')], {
      cache: { ttl: '1h' },
    });
    expect(body.system).toEqual([
      { text: 'A' },
      { cachePoint: { type: 'default' } },
      { text: 'B' },
      { cachePoint: { type: 'default' } },
      { text: 'DYNAMIC' },
    ]);
    expect((body.messages as Array<{ content: object[] }>)[0]!.content.at(-1)).toEqual({
      cachePoint: { type: 'default' },
    });
    expect(warnings).toEqual(
      expect.arrayContaining(['adjusted the cache markers', 'adjusted the cache ttl']),
    );
    expect(checkConverseRequest(converse(body))).toBeUndefined();
  });

  it.each(['us.anthropic.claude-sonnet-4-20250514-v1:0', 'us.amazon.nova-pro-v1:0'])(
    '%s takes no 1-hour point: 5 minutes, with a WARN',
    (model) => {
      const { body, warnings } = build(
        [marked('STATIC', '1h'), text('DYNAMIC')],
        { cache: { ttl: '1h' } },
        model,
      );
      expect(JSON.stringify(body)).not.toContain('"ttl"');
      expect(warnings).toContain('adjusted the cache ttl');
    },
  );

  it('which models take a 1-hour point', () => {
    expect(
      [
        'anthropic.claude-sonnet-4-5-20250929-v1:0',
        'global.anthropic.claude-haiku-4-5-20251001-v1:0',
        'us.anthropic.claude-opus-4-5-20251101-v1:0',
        'anthropic.claude-opus-4-6-v1',
        'anthropic.claude-opus-4-1-20250805-v1:0',
        'anthropic.claude-opus-4-20250514-v1:0',
        'anthropic.claude-3-7-sonnet-20250219-v1:0',
        'amazon.nova-pro-v1:0',
      ].map(takesHourCache),
    ).toEqual([true, true, true, true, false, false, false, false]);
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

  it('a ttl other than 5m or 1h, and a longer ttl after a shorter one (tools → system → messages)', () => {
    const hour = { cachePoint: { type: 'default', ttl: '1h' } };
    const user = (block: object) => [{ role: 'user', content: [{ text: 'q' }, block] }];
    const system = [{ text: 'a' }, hour];
    expect(refusal({ system, messages: user(point) })).toBeUndefined();
    expect(
      refusal({ system, messages: user({ cachePoint: { type: 'default', ttl: '5m' } }) }),
    ).toBeUndefined();
    expect(refusal({ messages: user({ cachePoint: { type: 'default', ttl: '2h' } }) })).toMatch(/ttl/);
    expect(refusal({ system: [{ text: 'a' }, point], messages: user(hour) })).toMatch(/longer TTL/);
    const config = { tools: [{ toolSpec: { name: 't', inputSchema: { json: {} } } }, point] };
    expect(refusal({ system, messages: user(point), toolConfig: config })).toMatch(/longer TTL/);
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
