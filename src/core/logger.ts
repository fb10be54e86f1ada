/** The structured logger adapters report lossy projections and fallbacks to. */
import { redactFields, redactSecrets } from './redaction.ts';

/** A structured log entry's fields. */
export type LogFields = Record<string, unknown>;

/**
 * Where adapters send structured diagnostics. A `warn` or `debug` that throws or rejects is ignored
 * ({@link guardLogger}): logging never changes a call's result.
 */
export interface Logger {
  warn(message: string, fields: LogFields): void;
  debug?(message: string, fields: LogFields): void;
}

/** How much the default logger reports: `debug` (everything), `warn` (default) or `silent`. */
export type LogLevel = 'debug' | 'warn' | 'silent';

/** The environment variable that sets the default logger's level when no option does. */
export const logLevelVariable = 'SWITCHYARD_LOG_LEVEL';

const levels: readonly LogLevel[] = ['debug', 'warn', 'silent'];

/** The level: the option, else `SWITCHYARD_LOG_LEVEL` (`debug`, `warn`, `silent`), else `warn`. */
export function resolveLogLevel(level?: LogLevel): LogLevel {
  if (level !== undefined && levels.includes(level)) return level;
  const fromEnvironment = process.env[logLevelVariable]?.trim().toLowerCase() as LogLevel | undefined;
  return fromEnvironment !== undefined && levels.includes(fromEnvironment) ? fromEnvironment : 'warn';
}

/** Distinct repeated entries remembered per logger (beyond this, the oldest are forgotten). */
const rememberedEntries = 1000;

/** Fields that differ on every call and so do not make a warning new. */
const perCallFields = new Set(['requestId', 'sessionId']);

/**
 * A default logger: one redacted JSON line per entry on stderr (`{"level":"warn","msg":…,…}`).
 * A warning repeated with the same message and fields (request and session ids aside) is written
 * once per logger, i.e. once per adapter, not on every call.
 */
export function createConsoleLogger(options: { level?: LogLevel } = {}): Logger {
  const level = resolveLogLevel(options.level);
  const seen = new Set<string>();
  const write = (entryLevel: 'warn' | 'debug', message: string, fields: LogFields) => {
    const key = `${entryLevel}\u0000${message}\u0000${stableFields(fields)}`;
    if (seen.has(key)) return;
    if (seen.size >= rememberedEntries) seen.delete(seen.values().next().value as string);
    seen.add(key);
    const entry = { level: entryLevel, msg: redactSecrets(message), ...(redactFields(fields) as LogFields) };
    process.stderr.write(`${JSON.stringify(entry)}\n`);
  };
  return {
    warn(message, fields) {
      if (level !== 'silent') write('warn', message, fields);
    },
    debug(message, fields) {
      if (level === 'debug') write('debug', message, fields);
    },
  };
}

function stableFields(fields: LogFields): string {
  try {
    return JSON.stringify(Object.entries(fields).filter(([name]) => !perCallFields.has(name)));
  } catch {
    return String(Object.keys(fields));
  }
}

/** A process-wide default logger (level from `SWITCHYARD_LOG_LEVEL`); adapters each create their own. */
export const consoleLogger: Logger = createConsoleLogger();

const guarded = new WeakSet<Logger>();

/**
 * The user's logger wrapped where it enters the library (front door, adapter options, gateway,
 * agent): a `warn` or `debug` that throws, or returns a promise that rejects, is ignored, so a
 * broken logger never changes a call's result — the same isolation observers get. A logger already
 * wrapped is returned as it is; `debug` stays absent when the logger has none.
 */
export function guardLogger(logger: Logger): Logger {
  if (guarded.has(logger)) return logger;
  const safe: Logger = {
    warn: (message, fields) => callSafely(() => logger.warn(message, fields)),
    ...(typeof logger.debug === 'function'
      ? { debug: (message: string, fields: LogFields) => callSafely(() => logger.debug?.(message, fields)) }
      : {}),
  };
  guarded.add(safe);
  return safe;
}

function callSafely(write: () => unknown): void {
  try {
    const result = write();
    if (result !== null && typeof result === 'object' && 'then' in result)
      Promise.resolve(result).catch(() => {});
  } catch {
    // A logger's failure is its own: the call it reports on goes on unchanged.
  }
}

/** A logger that drops everything. */
export const silentLogger: Logger = { warn() {} };

/** A logger that keeps entries in memory, for tests and inspection. */
export function createMemoryLogger(): Logger & { entries: Array<{ message: string; fields: LogFields }> } {
  const entries: Array<{ message: string; fields: LogFields }> = [];
  return { entries, warn: (message, fields) => entries.push({ message, fields }) };
}
