/** Cost tracking: a versioned, dated, tiered price table and the functions that price usage. */
export { addCosts, computeCost, pricesAt, rateFor } from './cost.ts';
export {
  createPriceTable,
  defaultPriceTable,
  type PriceTable,
  type PriceTableOptions,
  reprice,
} from './price-table.ts';
export { bundledPrices } from './prices.generated.ts';
export type {
  DatedPrices,
  MatchLogic,
  ModelPrices,
  PricedModel,
  PricedProvider,
  PriceSnapshot,
  Rate,
  TieredPrice,
} from './types.ts';
