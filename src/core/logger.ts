/** The structured logger adapters report lossy projections and fallbacks to. */
import { redactFields, redactSecrets } from './redaction.ts';

/** A structured log entry's fields. */
export type LogFields = Record<string, unknown>;

/** Where adapters send structured diagnostics. */
export interface Logger {
  warn(message: string, fields: LogFields): void;
  debug?(message: string, fields: LogFields): void;
}

/**
 * The default logger: one JSON line per warning on stderr (`{"level":"warn","msg":…,…}`). Pass
 * `logger` in adapter options to route warnings elsewhere, or `silentLogger` to drop them.
 */
export const consoleLogger: Logger = {
  warn(message, fields) {
    const entry = { level: 'warn', msg: redactSecrets(message), ...(redactFields(fields) as LogFields) };
    process.stderr.write(`${JSON.stringify(entry)}\n`);
  },
};

/** A logger that drops everything. */
export const silentLogger: Logger = { warn() {} };

/** A logger that keeps entries in memory, for tests and inspection. */
export function createMemoryLogger(): Logger & { entries: Array<{ message: string; fields: LogFields }> } {
  const entries: Array<{ message: string; fields: LogFields }> = [];
  return { entries, warn: (message, fields) => entries.push({ message, fields }) };
}
