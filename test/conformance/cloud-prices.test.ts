/**
 * Bedrock and Vertex prices: every model of their models.dev catalog rows is priced (genai-prices
 * `aws` / `google` rows, then models.dev), and a cross-region inference profile or a Vertex
 * `@version` name finds its model's price.
 */
import { describe, expect, it } from 'vitest';
import type { Usage } from '../../src/core/usage.ts';
import { reprice } from '../../src/pricing/price-table.ts';
import { bundledCatalog } from '../../src/providers/catalog/index.ts';

const usage: Usage = { input: 1_000, output: 100, cacheRead: 0, cacheWrite: 0, reasoning: 0 };

describe('cloud prices', () => {
  it.each(['bedrock', 'vertex'])('prices every %s catalog model', (provider) => {
    const models = Object.keys(bundledCatalog[provider] ?? {});
    expect(models.length).toBeGreaterThan(10);
    const unpriced = models.filter((name) => reprice(usage, `${provider}:${name}`).cost === undefined);
    expect(unpriced).toEqual([]);
  });

  it('prices a cross-region inference profile and a Vertex Claude version', () => {
    const bedrock = reprice(usage, 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0').cost;
    expect(bedrock?.amount).toBeGreaterThan(0);
    expect(bedrock?.currency).toBe('USD');
    // Sonnet 4.5 on Vertex: $3 in, $15 out per million tokens.
    expect(reprice(usage, 'vertex:claude-sonnet-4-5@20250929').cost?.amount).toBeCloseTo(0.0045, 10);
    expect(reprice(usage, 'vertex:gemini-2.5-flash').cost?.amount).toBeGreaterThan(0);
  });
});
