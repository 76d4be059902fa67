// What a module in src/kafka/apis/ needs from the transport (src/kafka/transport.ts): send one
// low-level request through the gateway's connection pool, routed and retried like every
// other call and counted in the metrics. Types only, so the API modules and the transport
// do not import each other.
import type { Connection } from '@platformatic/kafka';
import { kafkaErrorName, NONE } from './errors-map.js';

/** Where a request goes: any broker, the controller, or one broker by id (broker configs, log dirs, partition leaders). */
export type RequestTarget = 'any' | 'controller' | { broker: number };

/** Called once per Kafka request sent (or attempted): api = Kafka API name, errorName = NONE on success. */
export type OnKafkaRequest = (api: string, errorName: string, seconds: number) => void;

/**
 * Send one request with the gateway's retry policy and metrics. `inBand`: per-item error
 * codes come back in the response instead of being thrown; it names the error for the
 * metrics label.
 */
export interface RequestSender {
  sendRequest<T>(api: string, target: RequestTarget, call: (conn: Connection) => Promise<T>, inBand?: (res: T) => string): Promise<T>;
  /** The configured per-request timeout, for requests that carry a timeout_ms field. */
  readonly requestTimeoutMs: number;
}

/** Error name of a response for the metrics hook: the first non-zero code, else NONE. */
export function firstErrorName(codes: Iterable<number>): string {
  for (const c of codes) if (c !== 0) return kafkaErrorName(c);
  return NONE;
}
