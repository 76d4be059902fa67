// The smallest logger contract the gateway needs; pass pino or anything shaped like it.
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** One JSON object per line on stdout/stderr: what log shippers expect from a container. */
export const jsonLogger: Logger = {
  info: (msg, fields) => process.stdout.write(JSON.stringify({ level: 'info', time: new Date().toISOString(), msg, ...fields }) + '\n'),
  warn: (msg, fields) => process.stderr.write(JSON.stringify({ level: 'warn', time: new Date().toISOString(), msg, ...fields }) + '\n'),
  error: (msg, fields) => process.stderr.write(JSON.stringify({ level: 'error', time: new Date().toISOString(), msg, ...fields }) + '\n'),
};

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
