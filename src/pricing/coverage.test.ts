/**
 * Every model of the bundled catalog served by a built-in provider has a bundled price, unless it is
 * on the reasoned allow-list below; a model without one would cost nothing visible and WARN at run time.
 */
import { describe, expect, it } from 'vitest';
import type { Usage } from '../core/usage.ts';
import { bundledCatalog } from '../providers/catalog/index.ts';
import { builtinAdapters } from '../registry/defaults.ts';
import { defaultPriceTable, reprice } from './price-table.ts';
import { bundledPrices } from './prices.generated.ts';

/**
 * Built-in catalog models allowed to stay unpriced, each with the reason. Empty today: the models
 * neither genai-prices nor models.dev prices carry a cited row in scripts/prices-supplement.ts.
 */
const allowedUnpriced: Record<string, string> = {};

/** The catalog's models of the built-in adapters, as canonical ids. */
function builtinCatalogModels(): string[] {
  const providers = Object.keys(builtinAdapters());
  return providers.flatMap((provider) =>
    Object.keys(bundledCatalog[provider] ?? {}).map((name) => `${provider}:${name}`),
  );
}

function usage(input: number, output: number): Usage {
  return { input, output, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
}

/** Whether a call with input and output tokens on `model` gets a cost (a row without token prices does not). */
function isPriced(model: string): boolean {
  return reprice(usage(1_000, 100), model).cost !== undefined;
}

describe('bundled price coverage', () => {
  it('prices every catalog model of a built-in provider (allow-list aside)', () => {
    const models = builtinCatalogModels();
    expect(models.length).toBeGreaterThan(200);
    const unpriced = models.filter((model) => !isPriced(model));
    expect(unpriced.filter((model) => !(model in allowedUnpriced))).toEqual([]);
  });

  it('keeps no stale allow-list entry (each is still in the catalog and still unpriced)', () => {
    const models = new Set(builtinCatalogModels());
    for (const [model, reason] of Object.entries(allowedUnpriced)) {
      expect(reason.length, model).toBeGreaterThan(20);
      expect(models.has(model), model).toBe(true);
      expect(isPriced(model), model).toBe(false);
    }
  });

  it('covers the catalog providers that genai-prices lacks from models.dev and the cited supplement', () => {
    const alibaba = bundledPrices.providers.find((provider) => provider.name === 'alibaba');
    const sources = new Set(alibaba?.models.map((model) => model.source?.split(' ')[0]));
    expect(sources).toEqual(
      new Set(['models.dev', 'https://www.alibabacloud.com/help/en/model-studio/model-pricing']),
    );
    expect(bundledPrices.version).toMatch(/^genai-prices@[\d.]+\+models\.dev@[\d.]+$/);
  });

  it('prices Qwen3-Max on Alibaba by the input tier of the request', () => {
    // ≤ 32k input: $1.20 / $6.00 per million; above 32k: $2.40 / $12.00; above 128k: $3.00 / $15.00.
    expect(reprice(usage(1_000, 100), 'alibaba:qwen3-max').cost?.amount).toBeCloseTo(0.0018, 10);
    expect(reprice(usage(40_000, 1_000), 'alibaba:qwen3-max').cost?.amount).toBeCloseTo(0.108, 10);
    expect(reprice(usage(200_000, 1_000), 'alibaba:qwen3-max').cost?.amount).toBeCloseTo(0.615, 10);
    expect(reprice(usage(1_000, 100), 'alibaba:qwen3-max-2025-09-23').cost?.amount).toBeCloseTo(0.0018, 10);
  });

  it('a model the source lists as free costs an explicit 0, never a missing cost', () => {
    expect(reprice(usage(1_000, 100), 'openrouter:deepseek/deepseek-r1:free').cost?.amount).toBe(0);
    expect(reprice(usage(1_000, 100), 'openrouter:deepseek/deepseek-r1').cost?.amount).toBeGreaterThan(0);
  });

  it('a source row with no token price (audio hours, OCR pages) is left out, not priced at 0', () => {
    expect(defaultPriceTable().lookup('groq:whisper-large-v3')).toBeUndefined();
    expect(defaultPriceTable().lookup('mistral:mistral-ocr-latest')).toBeUndefined();
  });

  it('prices an OpenRouter model and a catalog model only models.dev prices', () => {
    expect(defaultPriceTable().lookup('openrouter:anthropic/claude-sonnet-4')).toBeDefined();
    expect(defaultPriceTable().lookup('fireworks:accounts/fireworks/models/glm-4p5')).toMatchObject({
      input_mtok: 0.55,
      output_mtok: 2.19,
    });
  });
});
