/**
 * The provider-type table as the tests drive it: one row per wire protocol the emulator serves (the first
 * row of the built-in table speaking it), its default model, and its adapter on an emulator.
 */
import type { Adapter } from '../../src/core/adapter.ts';
import type { Logger } from '../../src/core/logger.ts';
import { createAdapterFor, defaultModelOf } from '../../src/cli/adapters.ts';
import {
  type ProviderTypeCreateOptions,
  type ProviderTypeDefinition,
  type ProviderTypeTable,
  createProviderTypeTable,
  emulatedProviderTypes,
  findProviderType,
  loadProviderTypeTable,
} from '../../src/registry/provider-type-table.ts';
import { type EmulatorProtocolId, isEmulatorProtocolId } from '../../src/testing/emulator/index.ts';

/** The built-in provider types, each loading its adapter on first use. */
export const testProviderTypes: ProviderTypeTable = createProviderTypeTable();

/** Every wire protocol the built-in table speaks, in table order. */
export const wireProtocols: EmulatorProtocolId[] = [
  ...new Set(
    emulatedProviderTypes(testProviderTypes).flatMap((row) =>
      isEmulatorProtocolId(row.protocol) ? [row.protocol] : [],
    ),
  ),
];

/** The row that speaks `protocol` (the first in the table). */
export function apiFor(protocol: EmulatorProtocolId): ProviderTypeDefinition {
  const definition = findProviderType(testProviderTypes, protocol);
  if (definition === undefined) throw new Error(`no provider-type row speaks ${protocol}`);
  return definition;
}

/** The default model of the row that speaks `protocol`. */
export function defaultModelFor(protocol: EmulatorProtocolId): string {
  return defaultModelOf(apiFor(protocol));
}

/** The adapter of the row that speaks `protocol`, pointed at an emulator (its base path appended). */
export function adapterOnEmulator(
  protocol: EmulatorProtocolId,
  options: { baseURL: string; apiKey?: string; maxRetries?: number; logger?: Logger },
): Promise<Adapter> {
  return createAdapterFor(apiFor(protocol), { apiKey: 'emulator-key', ...options });
}

const builtins = await loadProviderTypeTable(createProviderTypeTable());

/** The built-in row of `type` (its code loaded: its `create` is ready). */
export function builtinProviderType(type: string): ProviderTypeDefinition {
  const definition = builtins.get(type);
  if (definition === undefined) throw new Error(`no built-in API of type ${type}`);
  return definition;
}

/** Options of {@link createOnEmulator}: the row's create options; `name` defaults to the type. */
export type EmulatorAdapterOptions = Omit<ProviderTypeCreateOptions, 'name' | 'baseURL'> & { name?: string };

/** Creates the built-in adapter of `type` against an emulator at `root`, its row's base path appended. */
export function createOnEmulator(type: string, root: string, options: EmulatorAdapterOptions = {}): Adapter {
  const definition = builtinProviderType(type);
  return definition.create({ name: type, ...options, baseURL: `${root}${definition.basePath ?? ''}` });
}

/** The wire protocol the built-in row of `type` speaks (as the emulator names it). */
export function protocolOf(type: string): EmulatorProtocolId {
  const protocol = builtinProviderType(type).protocol;
  if (!isEmulatorProtocolId(protocol)) throw new Error(`API ${type} speaks no protocol the emulator serves`);
  return protocol;
}

/** The `base_url` of the built-in row `type` on an emulator at `root` (for `createSwitchyard` configs). */
export function emulatorBaseURL(type: string, root: string): string {
  return `${root}${builtinProviderType(type).basePath ?? ''}`;
}
