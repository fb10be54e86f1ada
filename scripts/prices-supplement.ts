/**
 * Prices no maintained source carries yet, each with the page it was read from and the date it was
 * checked; `scripts/refresh-prices.ts` appends them to the bundled table and reports a row once a
 * source (genai-prices, models.dev) prices that model, so it can be dropped here.
 */
import type { PricedModel } from '../src/pricing/types.ts';

/** One reviewed row: the Switchyard adapter name and a price-table row whose `source` cites the page. */
export interface SupplementRow {
  provider: string;
  model: PricedModel;
}

export const supplement: SupplementRow[] = [
  {
    // Alibaba Cloud Model Studio, international (Singapore) deployment, standard (non-batch) rates; the
    // tier is chosen by the request's input tokens and applies to every token of the request.
    provider: 'alibaba',
    model: {
      id: 'qwen3-max',
      match: { or: [{ equals: 'qwen3-max' }, { starts_with: 'qwen3-max-20' }] },
      source:
        'https://www.alibabacloud.com/help/en/model-studio/model-pricing (qwen3-max, international, standard rates; cross-checked 2026-11-23 against a reseller listing the same base rates)',
      prices: {
        input_mtok: {
          base: 1.2,
          tiers: [
            { start: 32_000, price: 2.4 },
            { start: 128_000, price: 3 },
          ],
        },
        output_mtok: {
          base: 6,
          tiers: [
            { start: 32_000, price: 12 },
            { start: 128_000, price: 15 },
          ],
        },
      },
    },
  },
];
