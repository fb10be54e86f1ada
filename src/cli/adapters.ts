/**
 * The CLI's view of the provider-type table: `--protocol` names, help and errors come from the table's rows, and
 * each adapter is created from its row, its provider's code loaded only when that API is used.
 */
import type { Adapter } from '../core/adapter.ts';
import type { Logger } from '../core/logger.ts';
import {
  type ProviderTypeDefinition,
  type ProviderTypeTable,
  providerTypeNames,
  createAdapterOfType,
  createProviderTypeTable,
  findProviderType,
  unknownNameMessage,
} from '../registry/provider-type-table.ts';
import { UsageError } from './args.ts';

/** Options the CLI passes to every adapter. */
export interface CliAdapterOptions {
  /** The emulator's URL; the row's `basePath` is appended. */
  baseURL: string;
  apiKey: string;
  maxRetries?: number;
  logger?: Logger;
}

/** The built-in provider types, each importing its adapter on first use: the table the `switchyard` binary drives. */
export const cliProviderTypes: ProviderTypeTable = createProviderTypeTable();

/** The `--protocol` names `table` accepts, in help order: wire protocols first, then provider types. */
export function cliProviderTypeNames(table: ProviderTypeTable = cliProviderTypes): string[] {
  return providerTypeNames(table);
}

/** The row `--protocol <name>` selects; a usage error naming the closest known name when there is none. */
export function resolveProviderType(
  name: string,
  table: ProviderTypeTable = cliProviderTypes,
): ProviderTypeDefinition {
  const definition = findProviderType(table, name);
  if (definition === undefined)
    throw new UsageError(unknownNameMessage('--protocol', name, providerTypeNames(table)));
  return definition;
}

/** The model to request over `definition` when the input does not say. */
export function defaultModelOf(definition: ProviderTypeDefinition): string {
  return definition.defaultModel ?? `${definition.type}:default`;
}

/** Creates the real adapter of `definition`, pointed at `options.baseURL` (the emulator's URL) plus its base path. */
export function createAdapterFor(
  definition: ProviderTypeDefinition,
  options: CliAdapterOptions,
): Promise<Adapter> {
  return createAdapterOfType(definition, {
    name: definition.type,
    ...options,
    baseURL: `${options.baseURL}${definition.basePath ?? ''}`,
  });
}
