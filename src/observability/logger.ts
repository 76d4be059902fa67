// The logging contract every layer codes against: message first, fields second. It lives
// below src/http so that services (src/reconcile, ...) can log without importing HTTP code;
// src/http/logger.ts puts pino behind it and tests pass a recording logger.
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}
