// The logging contract every layer codes against (message first, fields second), and its
// implementation: structured JSON logs through pino, one JSON object per line, which is what
// container log shippers expect. It lives below src/http so that services (src/reconcile, ...)
// and the worker thread log without importing HTTP code; tests pass a recording logger.
import { destination, pino, stdTimeFunctions, type DestinationStream, type Level } from 'pino';

export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export const LOG_LEVELS: readonly Level[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

/**
 * Field paths pino censors whatever the call site passed. A second line of defence:
 * the audit log builds its own redacted summaries (src/http/audit.ts), and no code path
 * is meant to log credentials at all. pino's paths match fixed depths, so the common
 * nestings are listed.
 */
export const REDACTED_PATHS: readonly string[] = [
  'authorization',
  'password',
  'token',
  'headers.authorization',
  'req.headers.authorization',
  '*.authorization',
  '*.password',
  '*.token',
  '*.headers.authorization',
  '*.sasl.password',
  'sasl.password',
];

export interface LoggerOptions {
  /** Where lines go; stdout by default. Tests pass a stream and read the lines back. */
  destination?: DestinationStream;
  level?: Level;
  /** Fields on every line. */
  base?: Record<string, unknown>;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const log = pino(
    {
      level: opts.level ?? 'info',
      base: { service: 'kafka-admin-gateway', ...opts.base },
      // "level":"warn" reads better in a log UI than pino's numeric 40.
      formatters: { level: (label) => ({ level: label }) },
      timestamp: stdTimeFunctions.isoTime,
      redact: { paths: [...REDACTED_PATHS], censor: '[REDACTED]' },
    },
    opts.destination ?? destination({ dest: 1, sync: true }),
  );
  return {
    info: (msg, fields) => log.info(fields ?? {}, msg),
    warn: (msg, fields) => log.warn(fields ?? {}, msg),
    error: (msg, fields) => log.error(fields ?? {}, msg),
  };
}

function levelFromEnv(raw: string | undefined): Level {
  const v = raw?.trim().toLowerCase();
  return v && (LOG_LEVELS as string[]).includes(v) ? (v as Level) : 'info';
}

/** The process logger: JSON lines on stdout, level from LOG_LEVEL (default info). */
export const jsonLogger: Logger = createLogger({ level: levelFromEnv(process.env.LOG_LEVEL) });

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
