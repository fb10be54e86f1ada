/**
 * The API table as the tests drive it: one row per wire protocol the emulator serves (the first
 * row of the built-in table speaking it), its default model, and its adapter on an emulator.
 */
import type { Adapter } from '../../src/core/adapter.ts';
import type { Logger } from '../../src/core/logger.ts';
import { createAdapterFor, defaultModelOf } from '../../src/cli/adapters.ts';
import {
  type ApiCreateOptions,
  type ApiDefinition,
  type ApiTable,
  createApiTable,
  emulatedApis,
  findApi,
  loadApiTable,
} from '../../src/registry/api-table.ts';
import { type EmulatorApi, isEmulatorApi } from '../../src/testing/emulator/index.ts';

/** The built-in APIs, each loading its adapter on first use. */
export const testApis: ApiTable = createApiTable();

/** Every wire protocol the built-in table speaks, in table order. */
export const wireProtocols: EmulatorApi[] = [
  ...new Set(emulatedApis(testApis).flatMap((row) => (isEmulatorApi(row.protocol) ? [row.protocol] : []))),
];

/** The row that speaks `protocol` (the first in the table). */
export function apiFor(protocol: EmulatorApi): ApiDefinition {
  const definition = findApi(testApis, protocol);
  if (definition === undefined) throw new Error(`no API row speaks ${protocol}`);
  return definition;
}

/** The default model of the row that speaks `protocol`. */
export function defaultModelFor(protocol: EmulatorApi): string {
  return defaultModelOf(apiFor(protocol));
}

/** The adapter of the row that speaks `protocol`, pointed at an emulator (its base path appended). */
export function adapterOnEmulator(
  protocol: EmulatorApi,
  options: { baseURL: string; apiKey?: string; maxRetries?: number; logger?: Logger },
): Promise<Adapter> {
  return createAdapterFor(apiFor(protocol), { apiKey: 'emulator-key', ...options });
}

const builtins = await loadApiTable(createApiTable());

/** The built-in row of `type` (its code loaded: its `create` is ready). */
export function builtinApi(type: string): ApiDefinition {
  const definition = builtins.get(type);
  if (definition === undefined) throw new Error(`no built-in API of type ${type}`);
  return definition;
}

/** Options of {@link createOnEmulator}: the row's create options; `name` defaults to the type. */
export type EmulatorAdapterOptions = Omit<ApiCreateOptions, 'name' | 'baseURL'> & { name?: string };

/** Creates the built-in adapter of `type` against an emulator at `root`, its row's base path appended. */
export function createOnEmulator(type: string, root: string, options: EmulatorAdapterOptions = {}): Adapter {
  const definition = builtinApi(type);
  return definition.create({ name: type, ...options, baseURL: `${root}${definition.basePath ?? ''}` });
}

/** The wire protocol the built-in row of `type` speaks (as the emulator names it). */
export function protocolOf(type: string): EmulatorApi {
  const protocol = builtinApi(type).protocol;
  if (!isEmulatorApi(protocol)) throw new Error(`API ${type} speaks no protocol the emulator serves`);
  return protocol;
}

/** The `base_url` of the built-in row `type` on an emulator at `root` (for `createSwitchyard` configs). */
export function emulatorBaseURL(type: string, root: string): string {
  return `${root}${builtinApi(type).basePath ?? ''}`;
}
