/**
 * `switchyard-ai/gateway`: every provider's protocol inbound, any provider outbound. For people
 * operating a gateway: `createGateway`, its options and config, and the state-store interface a
 * shared store (Redis) implements.
 */
export { createGateway, type Gateway, type GatewayOptions, type GatewayServer } from './server.ts';
export {
  gatewayConfigSchema,
  type GatewayConfig,
  type GatewayFileConfig,
  type GatewayKeyConfig,
} from './config.ts';
export { createMemoryStore, type GatewayStore, type MemoryStoreOptions } from './store.ts';
export type { GatewayMetrics } from './metrics.ts';
export { codecs } from '../codecs/index.ts';
export type { ProtocolCodec, ProtocolName } from '../codecs/types.ts';
