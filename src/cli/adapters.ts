/**
 * The CLI's view of the API table: `--api` names, help and errors come from the table's rows, and
 * each adapter is created from its row, its provider's code loaded only when that API is used.
 */
import type { Adapter } from '../core/adapter.ts';
import type { Logger } from '../core/logger.ts';
import {
  type ApiDefinition,
  type ApiTable,
  apiNames,
  createApiAdapter,
  createApiTable,
  findApi,
  unknownApiMessage,
} from '../registry/api-table.ts';
import { UsageError } from './args.ts';

/** Options the CLI passes to every adapter. */
export interface CliAdapterOptions {
  /** The emulator's URL; the row's `basePath` is appended. */
  baseURL: string;
  apiKey: string;
  maxRetries?: number;
  logger?: Logger;
}

/** The built-in APIs, each importing its adapter on first use: the table the `switchyard` binary drives. */
export const cliApis: ApiTable = createApiTable();

/** The `--api` names `table` accepts, in help order: wire protocols first, then API types. */
export function cliApiNames(table: ApiTable = cliApis): string[] {
  return apiNames(table);
}

/** The row `--api <name>` selects; a usage error naming the closest known name when there is none. */
export function resolveApi(name: string, table: ApiTable = cliApis): ApiDefinition {
  const definition = findApi(table, name);
  if (definition === undefined) throw new UsageError(unknownApiMessage('--api', name, apiNames(table)));
  return definition;
}

/** The model to request over `definition` when the input does not say. */
export function defaultModelOf(definition: ApiDefinition): string {
  return definition.defaultModel ?? `${definition.type}:default`;
}

/** Creates the real adapter of `definition`, pointed at `options.baseURL` (the emulator's URL) plus its base path. */
export function createAdapterFor(definition: ApiDefinition, options: CliAdapterOptions): Promise<Adapter> {
  return createApiAdapter(definition, {
    name: definition.type,
    ...options,
    baseURL: `${options.baseURL}${definition.basePath ?? ''}`,
  });
}
