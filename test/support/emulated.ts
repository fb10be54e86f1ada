/**
 * Test set-up over the emulator: adapter entries pointed at it, a front door over them, a gateway
 * listening on top — each started set with one `close()`.
 */
import { createMemoryLogger } from '../../src/core/logger.ts';
import {
  createGateway,
  type Gateway,
  type GatewayFileConfig,
  type GatewayOptions,
  type GatewayServer,
} from '../../src/gateway/index.ts';
import type { AdapterConfig, SwitchyardConfig } from '../../src/registry/config.ts';
import { createSwitchyard, type Switchyard, type SwitchyardOptions } from '../../src/switchyard.ts';
import { type Emulator, type EmulatorOptions, startEmulator } from '../../src/testing/emulator/index.ts';
import { emulatorBaseURL } from './provider-types.ts';

/** One adapter on the emulator: a built-in type (`'anthropic'`), or an entry with its type and the fields it sets itself. */
export type EmulatedAdapter = string | (Partial<AdapterConfig> & { type: string });

/** The key the emulated adapters send unless the options name one. */
export const emulatedKey = 'emulator-key';

/**
 * The `adapters:` entries of `adapters` on the emulator at `root`: each its built-in row's base
 * path on the emulator, `apiKey` as its key, no retries; an entry's own fields win.
 */
export function emulatedAdapters(
  root: string,
  adapters: Record<string, EmulatedAdapter>,
  apiKey = emulatedKey,
): Record<string, AdapterConfig> {
  return Object.fromEntries(
    Object.entries(adapters).map(([name, adapter]) => {
      const entry = typeof adapter === 'string' ? { type: adapter } : adapter;
      return [
        name,
        { base_url: emulatorBaseURL(entry.type, root), api_key: apiKey, max_retries: 0, ...entry },
      ];
    }),
  );
}

/** What an emulated front door or gateway is built from, beside its own options. */
interface EmulatedConfig {
  /** The adapters on the emulator, by name (see {@link emulatedAdapters}). */
  adapters: Record<string, EmulatedAdapter>;
  /** Their key (default {@link emulatedKey}). */
  apiKey?: string;
}

/**
 * A front door's options: `config` is the rest of the config (`builtins` false unless it says
 * otherwise; its own `adapters`, not on the emulator, come before the emulated ones); `logger` a
 * memory logger unless given.
 */
export interface EmulatedSwitchyardOptions extends EmulatedConfig, Omit<SwitchyardOptions, 'config'> {
  config?: SwitchyardConfig;
}

/** A gateway's options, as {@link EmulatedSwitchyardOptions}; `accessLog` writes nothing unless given. */
export interface EmulatedGatewayOptions
  extends EmulatedConfig, Omit<GatewayOptions, 'config' | 'switchyard'> {
  config?: GatewayFileConfig;
}

/** The config of `options` on the emulator at `root`. */
function emulatedConfig<Config extends SwitchyardConfig>(
  root: string,
  options: EmulatedConfig & { config?: Config },
): Config {
  const config = options.config ?? ({} as Config);
  return {
    builtins: false,
    ...config,
    adapters: { ...config.adapters, ...emulatedAdapters(root, options.adapters, options.apiKey) },
  };
}

/** A front door over the emulator at `root` (already running; the caller closes both). */
export function createEmulatedSwitchyard(root: string, options: EmulatedSwitchyardOptions): Switchyard {
  const { adapters, apiKey, config, ...rest } = options;
  return createSwitchyard({
    logger: createMemoryLogger(),
    ...rest,
    config: emulatedConfig(root, { adapters, apiKey, config }),
  });
}

/** A gateway (not listening: `gateway.app.request`) over the emulator at `root` (already running; the caller closes both). */
export function createEmulatedGateway(root: string, options: EmulatedGatewayOptions): Gateway {
  const { adapters, apiKey, config, ...rest } = options;
  return createGateway({
    logger: createMemoryLogger(),
    accessLog: () => {},
    ...rest,
    config: emulatedConfig(root, { adapters, apiKey, config }),
  });
}

/** A running emulator and a front door over it. */
export interface EmulatedSwitchyard {
  emulator: Emulator;
  switchyard: Switchyard;
  /** Closes the front door, then the emulator. */
  close(): Promise<void>;
}

/** Starts an emulator (with `emulator` options) and a front door over it. */
export async function startEmulatedSwitchyard(
  options: EmulatedSwitchyardOptions & { emulator?: EmulatorOptions },
): Promise<EmulatedSwitchyard> {
  const { emulator: emulatorOptions, ...frontDoor } = options;
  const emulator = await startEmulator(emulatorOptions);
  const switchyard = createEmulatedSwitchyard(emulator.url, frontDoor);
  return {
    emulator,
    switchyard,
    async close() {
      await switchyard.close();
      await emulator.close();
    },
  };
}

/** A running emulator and a gateway over it, listening on loopback. */
export interface EmulatedGateway {
  emulator: Emulator;
  gateway: Gateway;
  /** The gateway's front door. */
  switchyard: Switchyard;
  server: GatewayServer;
  /** Closes the server (no grace), the front door, then the emulator. */
  close(): Promise<void>;
}

/** Starts an emulator (with `emulator` options) and a gateway over it listening on 127.0.0.1 (any port). */
export async function startEmulatedGateway(
  options: EmulatedGatewayOptions & { emulator?: EmulatorOptions },
): Promise<EmulatedGateway> {
  const { emulator: emulatorOptions, ...gatewayOptions } = options;
  const emulator = await startEmulator(emulatorOptions);
  const gateway = createEmulatedGateway(emulator.url, gatewayOptions);
  const server = await gateway.listen({ host: '127.0.0.1', port: 0 });
  return {
    emulator,
    gateway,
    switchyard: gateway.switchyard,
    server,
    async close() {
      await server.close(0);
      await gateway.switchyard.close();
      await emulator.close();
    },
  };
}
