/**
 * Unbounded growth (#18 point 8): per-model-name caches are LRU-bounded and an unknown name is
 * warned about once, up to a cap; MCP pagination that never ends is refused; a JSON Schema
 * `pattern` that could backtrack without bound is not run locally; `switchyard replay` refuses a
 * device or an oversized file. (Gemini sessions ending with runs and conversations:
 * test/frontdoor/conversation-snapshot-gemini.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { runReplay } from '../../src/cli/replay-command.ts';
import { connectMcpTools, maxListedTools, maxToolPages } from '../../src/agent/mcp.ts';
import { createMemoryLogger } from '../../src/core/logger.ts';
import { LruCache, WarnOnce } from '../../src/core/lru.ts';
import { emptyUsage } from '../../src/core/usage.ts';
import { createPriceTable } from '../../src/pricing/price-table.ts';
import { createPricer } from '../../src/pricing/pricer.ts';
import { validateValue } from '../../src/schemas/schema.ts';
import { isSafePattern } from '../../src/schemas/safe-pattern.ts';
import { apiFor } from '../support/provider-types.ts';

describe('per-name caches and warnings are bounded', () => {
  it('LruCache keeps the most recently used entries only', () => {
    const cache = new LruCache<string, number>(3);
    for (let index = 0; index < 10_000; index++) cache.set(`model-${index}`, index);
    expect(cache.size).toBe(3);
    cache.get('model-9997');
    cache.set('fresh', 1);
    expect(cache.get('model-9997')).toBe(9997);
    expect(cache.get('model-9998')).toBeUndefined();
  });

  it('60,000 distinct unpriced names: one WARN per name up to the cap, then one saying so', () => {
    const logger = createMemoryLogger();
    const pricer = createPricer(createPriceTable(), logger);
    for (let index = 0; index < 60_000; index++) pricer.cost(`nowhere:unknown-${index}`, emptyUsage());
    pricer.cost('nowhere:unknown-1', emptyUsage());
    expect(logger.entries.length).toBe(1001);
    expect(logger.entries.at(-1)!.message).toMatch(/further unpriced models are not logged/);
  });

  it('WarnOnce answers warn, then capped once, then skip', () => {
    const once = new WarnOnce(2);
    expect([once.check('a'), once.check('a'), once.check('b'), once.check('c'), once.check('d')]).toEqual([
      'warn',
      'skip',
      'warn',
      'capped',
      'skip',
    ]);
  });
});

describe('MCP tools/list is bounded', () => {
  const tool = (name: string) => ({ name, inputSchema: { type: 'object' as const } });

  it('a nextCursor that never ends is refused with a classified error', async () => {
    let calls = 0;
    const client = {
      listTools: async (params: { cursor?: string }) => {
        calls++;
        return { tools: [tool(`t${calls}`)], nextCursor: `${Number(params.cursor ?? 0) + 1}` };
      },
      close: async () => {},
    };
    const error = await connectMcpTools({ client } as never).catch((caught: unknown) => caught);
    expect((error as { providerCode?: string }).providerCode).toBe('mcp_listing_unbounded');
    expect(calls).toBe(maxToolPages);
  });

  it('a repeated cursor is refused at once', async () => {
    let calls = 0;
    const client = {
      listTools: async () => {
        calls++;
        return { tools: [tool(`t${calls}`)], nextCursor: 'same' };
      },
      close: async () => {},
    };
    const error = await connectMcpTools({ client } as never).catch((caught: unknown) => caught);
    expect((error as { providerCode?: string }).providerCode).toBe('mcp_listing_unbounded');
    expect(calls).toBe(2);
  });

  it('a page with too many tools is refused', async () => {
    const client = {
      listTools: async () => ({
        tools: Array.from({ length: maxListedTools + 1 }, (_, index) => tool(`t${index}`)),
      }),
      close: async () => {},
    };
    const error = await connectMcpTools({ client } as never).catch((caught: unknown) => caught);
    expect((error as { providerCode?: string }).providerCode).toBe('mcp_listing_unbounded');
  });
});

describe('a JSON Schema pattern cannot block the event loop', () => {
  it.each([
    '^(a+)+$',
    '(a|a)*$',
    '^(a*)*b$',
    '(\\w+\\s?)+$',
    '^(.*a){12}$',
    '(x+x+)+y',
    '^(a|aa)+$',
    '(a)\\1',
    'a'.repeat(600),
  ])('unsafe: %s', (pattern) => {
    expect(isSafePattern(pattern)).toBe(false);
  });

  it.each(['^[A-Z]{3}$', '^\\d{4}-\\d{2}-\\d{2}$', '^[a-z0-9_-]+$', '^(foo|bar)$', '^(ab)+$', '[(+*)]+'])(
    'safe: %s',
    (pattern) => {
      expect(isSafePattern(pattern)).toBe(true);
    },
  );

  it('an unsafe pattern is left out of local validation; a safe one is still enforced', async () => {
    const schema = {
      type: 'object',
      properties: {
        evil: { type: 'string', pattern: '^(a+)+$' },
        code: { type: 'string', pattern: '^[A-Z]{3}$' },
      },
    };
    const attack = `${'a'.repeat(40)}!`;
    const result = await validateValue(schema, { evil: attack, code: 'ABC' });
    expect(result.ok).toBe(true);
    const bad = await validateValue(schema, { evil: attack, code: 'abc' });
    expect(bad.ok).toBe(false);
  });
});

describe('switchyard replay reads a bounded regular file', () => {
  it.each(['/dev/zero', '/dev/urandom', '/tmp'])('%s is refused (exit 2), not read', async (file) => {
    const errors: string[] = [];
    const code = await runReplay(file, apiFor('anthropic-messages'), {
      stdout: () => {},
      stderr: (line) => errors.push(line),
    });
    expect(code).toBe(2);
    expect(errors.join('\n')).toMatch(/not a regular file/);
  });
});
