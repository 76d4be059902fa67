// What a module in src/kafka/apis/ needs from the transport (src/kafka/transport.ts): send one
// low-level request through the gateway's connection pool, routed and retried like every
// other call and counted in the metrics. Types only, so the API modules and the transport
// do not import each other.
import type { Connection } from '@platformatic/kafka';
import type { MetadataAnswer } from './apis/metadata-answer.js';
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
export interface SendOptions {
  /**
   * false: a request whose connection was lost after it was sent (it may have been applied) is
   * not sent again; the caller learns it as an error and decides from what Kafka shows. For
   * writes whose repetition is not harmless (a wave re-sent could restart a move cancelled
   * meanwhile). Default true: retried like any lost connection.
   */
  resendInDoubt?: boolean;
}

export interface RequestSender {
  sendRequest<T>(
    api: string,
    target: RequestTarget,
    call: (conn: Connection) => Promise<T>,
    inBand?: (res: T) => string,
    opts?: SendOptions,
  ): Promise<T>;
  /** The configured per-request timeout, for requests that carry a timeout_ms field. */
  readonly requestTimeoutMs: number;
}

/** Error name of a response for the metrics hook: the first non-zero code, else NONE. */
export function firstErrorName(codes: Iterable<number>): string {
  for (const c of codes) if (c !== 0) return kafkaErrorName(c);
  return NONE;
}

/** A Metadata answer (v11-v12), decoded by src/kafka/apis/metadata.ts. */
export type MetadataResponse = MetadataAnswer;

/** One item of a multi-topic mutation's response, as Transport.mutateOnController reads it. */
export interface RawItem {
  name: string;
  errorCode: number;
  errorMessage: string | null | undefined;
}

/** An item's answer with the throttle time of the response it came in (for 429 Retry-After on error 89). */
export interface Answered<Raw> {
  item: Raw;
  throttleTimeMs: number;
}

/** The transport as the API modules use it: single attempts, the retry loop, routing state. */
export interface Transport extends RequestSender {
  /**
   * Send one request, no retry. With `inBand`, a ResponseError (the parser saw item error
   * codes) yields its complete `.response` instead of throwing; `inBand` picks the label.
   */
  send<T>(api: string, target: RequestTarget, call: (conn: Connection) => Promise<T>, inBand?: (res: T) => string): Promise<T>;
  /** Run fn with the retry policy; everything that escapes is a KafkaRequestError. */
  withRetry<T>(api: string, fn: (attempt: number) => Promise<T>): Promise<T>;
  /** One Metadata v12 request (no retry) that also teaches the transport the brokers and the controller. */
  metadata(topics: string[] | null): Promise<MetadataResponse>;
  /** Remember where the brokers and the controller are (from any response that lists them). */
  learnBrokers(brokers: { id: number; host: string; port: number }[], controllerId: number): void;
  /**
   * Send a multi-topic mutation to the controller; items answered NOT_CONTROLLER are re-sent
   * (only them) to the re-discovered controller, within the retry budget. `build` turns the
   * answered items into the result list (also the partial list of a failure).
   */
  mutateOnController<Req extends { name: string }, Raw extends RawItem, Out>(
    api: string,
    requests: Req[],
    send: (conn: Connection, batch: Req[]) => Promise<{ throttleTimeMs: number; items: Raw[] }>,
    build: (answered: Map<string, Answered<Raw>>) => Out[],
  ): Promise<Out[]>;
}
