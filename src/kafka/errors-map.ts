// Turns whatever @platformatic/kafka throws into a KafkaRequestError, and classifies
// errors for our own retry policy.
//
// The client nests errors at call-dependent depths (MultipleErrors of ResponseError of
// ProtocolError, or MultipleErrors('Cannot connect to any broker.') of NetworkError with a
// Node socket error as `cause`), so we flatten the tree and decide on the leaves.
import {
  AuthenticationError,
  MultipleErrors,
  NetworkError,
  ProtocolError,
  ResponseError,
  TimeoutError,
  UnsupportedApiError,
} from '@platformatic/kafka';
import { ERROR_CODES, kafkaErrorCode } from '../domain/kafka-error-codes.js';
import { KafkaRequestError, type KafkaFailureKind } from './errors.js';
import type { KafkaErrorInfo } from './types.js';

export const NONE = 'NONE';
// Name -> code, from the one table of Kafka's error codes (src/domain/kafka-error-codes.ts).
export { ERROR_CODES };

/** Kafka's error name for a code (src/domain/kafka-error-codes.ts). */
export function kafkaErrorName(code: number): string {
  return kafkaErrorCode(code)?.name ?? `UNKNOWN_ERROR_CODE_${code}`;
}

/** Kafka's standard description of an error code. */
export function kafkaErrorDescription(code: number): string {
  const row = kafkaErrorCode(code);
  return row ? (row.message ?? '') : `Kafka error code ${code}.`;
}

/** KafkaErrorInfo for a broker error code; the broker's own message wins when present. */
export function kafkaErrorInfo(code: number, serverMessage?: string | null, throttleTimeMs?: number): KafkaErrorInfo {
  const info: KafkaErrorInfo = {
    code,
    name: kafkaErrorName(code),
    message: serverMessage != null && serverMessage !== '' ? serverMessage : kafkaErrorDescription(code),
  };
  if (throttleTimeMs !== undefined) info.throttleTimeMs = throttleTimeMs;
  return info;
}

/**
 * Codes we re-send ourselves (bounded, with backoff). THROTTLING_QUOTA_EXCEEDED (89) is
 * deliberately absent: the caller must see it (429 + Retry-After), never an automatic retry.
 */
export const RETRIABLE_CODES: ReadonlySet<number> = new Set([
  ERROR_CODES.LEADER_NOT_AVAILABLE,
  ERROR_CODES.NOT_LEADER_OR_FOLLOWER,
  ERROR_CODES.REQUEST_TIMED_OUT,
  ERROR_CODES.NETWORK_EXCEPTION,
  ERROR_CODES.NOT_CONTROLLER,
]);

function isAggregate(e: unknown): e is AggregateError {
  return e instanceof AggregateError || (typeof e === 'object' && e !== null && Array.isArray((e as { errors?: unknown }).errors));
}

/** Leaves of the error tree (AggregateError.errors flattened; `cause` is not followed). */
export function leafErrors(err: unknown): unknown[] {
  const out: unknown[] = [];
  const walk = (e: unknown, depth: number) => {
    if (depth > 10) return;
    if (isAggregate(e) && e.errors.length > 0) {
      for (const sub of e.errors) if (sub) walk(sub, depth + 1);
    } else {
      out.push(e);
    }
  };
  walk(err, 0);
  return out;
}

/** First node of the tree (root included) matching pred. */
function findNode(err: unknown, pred: (e: unknown) => boolean, depth = 0): unknown {
  if (depth > 10 || err == null) return undefined;
  if (pred(err)) return err;
  if (isAggregate(err)) {
    for (const sub of err.errors) {
      const f = findNode(sub, pred, depth + 1);
      if (f !== undefined) return f;
    }
  }
  return undefined;
}

/** throttle_time_ms of the response carried by a ResponseError anywhere in the tree. */
export function throttleTimeOf(err: unknown): number | undefined {
  const re = findNode(err, (e) => e instanceof ResponseError && typeof e.response === 'object');
  const resp = (re as ResponseError | undefined)?.response as { throttleTimeMs?: unknown } | undefined;
  return typeof resp?.throttleTimeMs === 'number' ? resp.throttleTimeMs : undefined;
}

function isProtocolError(e: unknown): e is ProtocolError & { apiCode: number; serverErrorMessage: string | null } {
  return e instanceof ProtocolError || (typeof e === 'object' && e !== null && (e as { code?: unknown }).code === ProtocolError.code);
}

function isRequestTimeout(e: unknown): boolean {
  // TimeoutError is used for both connect and request timeouts (and its `code` is
  // PLT_KFK_NETWORK, a client quirk): the message tells them apart.
  return e instanceof TimeoutError && !/^Connection/.test((e as Error).message);
}

/** An AuthenticationError, possibly as the `cause` of the NetworkError the connection reports. */
function authFailureOf(e: unknown): AuthenticationError | undefined {
  let cur: unknown = e;
  for (let i = 0; i < 5 && cur != null; i++) {
    if (cur instanceof AuthenticationError) return cur;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

function isConnectionProblem(e: unknown): boolean {
  if (authFailureOf(e)) return false;
  if (e instanceof TimeoutError) return !isRequestTimeout(e);
  if (e instanceof NetworkError) return true;
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)$/.test(code)) {
    return true;
  }
  return e instanceof Error && /Connection pool is closed|Client is closed/.test(e.message);
}

/** True when every leaf of the error is worth re-sending (and none is error 89). */
export function isRetriable(err: unknown): boolean {
  if (err instanceof KafkaRequestError) {
    return err.kind !== 'timeout' && RETRIABLE_CODES.has(err.kafka.code) && !isClosedClient(err.cause);
  }
  const leaves = leafErrors(err);
  if (leaves.length === 0) return false;
  return leaves.every((l) => {
    if (isProtocolError(l)) return RETRIABLE_CODES.has(l.apiCode);
    if (authFailureOf(l)) return false;
    if (isRequestTimeout(l)) return false;
    if (isClosedClient(l)) return false;
    return isConnectionProblem(l);
  });
}

function isClosedClient(e: unknown): boolean {
  return leafErrors(e).some((l) => l instanceof Error && /Connection pool is closed|Client is closed/.test(l.message));
}

/** Whether the error shows a broken/refused connection (so cached broker routes should be dropped). */
export function isConnectionFailure(err: unknown): boolean {
  return leafErrors(err).some((l) => isConnectionProblem(l));
}

function describeCause(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = (e as { cause?: unknown }).cause;
  const msg = e.message.replace(/\.$/, '');
  if (!(cause instanceof Error)) return msg;
  return `${msg} (${(cause as { code?: string }).code ?? cause.message.replace(/\.$/, '')})`;
}

export interface ConvertOptions {
  /** The retry budget was spent on this (retriable) error: report 'unavailable'. */
  exhausted?: boolean;
  /** Used in messages, e.g. "CreateTopics". */
  api?: string;
}

/** Convert anything the client (or our code) threw into a KafkaRequestError. */
export function toKafkaRequestError(err: unknown, opts: ConvertOptions = {}): KafkaRequestError {
  if (err instanceof KafkaRequestError) {
    if (opts.exhausted && err.kind === 'kafka') {
      return new KafkaRequestError('unavailable', err.kafka, { items: err.items, cause: err.cause ?? err });
    }
    return err;
  }
  const leaves = leafErrors(err);
  const suffix = opts.exhausted ? ' (retries exhausted)' : '';

  // 1. A broker error code.
  const protocol = leaves.find(isProtocolError);
  if (protocol) {
    const throttle = throttleTimeOf(err);
    const info = kafkaErrorInfo(
      protocol.apiCode,
      protocol.serverErrorMessage,
      protocol.apiCode === ERROR_CODES.THROTTLING_QUOTA_EXCEEDED ? throttle : undefined,
    );
    const kind: KafkaFailureKind = opts.exhausted && RETRIABLE_CODES.has(protocol.apiCode) ? 'unavailable' : 'kafka';
    if (kind === 'unavailable') info.message += suffix;
    return new KafkaRequestError(kind, info, { cause: err });
  }

  // 2. Authentication failed.
  const auth = leaves.map(authFailureOf).find((a) => a !== undefined);
  if (auth) {
    return new KafkaRequestError(
      'unavailable',
      {
        code: ERROR_CODES.SASL_AUTHENTICATION_FAILED,
        name: kafkaErrorName(ERROR_CODES.SASL_AUTHENTICATION_FAILED),
        message: describeCause(auth),
      },
      { cause: err },
    );
  }

  // 3. The client gave up waiting for a response.
  const timeout = leaves.find(isRequestTimeout);
  if (timeout) {
    return new KafkaRequestError(
      'timeout',
      {
        code: ERROR_CODES.REQUEST_TIMED_OUT,
        name: kafkaErrorName(ERROR_CODES.REQUEST_TIMED_OUT),
        message: `${opts.api ? opts.api + ': ' : ''}no response from Kafka within the request timeout`,
      },
      { cause: err },
    );
  }

  // 4. Refused / lost / timed-out connections, closed client.
  const conn = leaves.find(isConnectionProblem);
  if (conn) {
    const top = err instanceof MultipleErrors ? `${err.message.replace(/\.$/, '')}: ` : '';
    const details = leaves.filter(isConnectionProblem).map(describeCause);
    const uniq = [...new Set(details)];
    return new KafkaRequestError(
      'unavailable',
      {
        code: ERROR_CODES.NETWORK_EXCEPTION,
        name: kafkaErrorName(ERROR_CODES.NETWORK_EXCEPTION),
        message: `${top}${uniq.slice(0, 5).join('; ')}${suffix}`.trim(),
      },
      { cause: err },
    );
  }

  // 5. Client lacks the API / version.
  const unsupported = leaves.find((l) => l instanceof UnsupportedApiError);
  if (unsupported) {
    return new KafkaRequestError('kafka', kafkaErrorInfo(ERROR_CODES.UNSUPPORTED_VERSION, (unsupported as Error).message), { cause: err });
  }

  // 6. Anything else (a bug, a malformed response, ...).
  const message = err instanceof Error ? err.message : String(err);
  return new KafkaRequestError(
    'kafka',
    { code: ERROR_CODES.UNKNOWN_SERVER_ERROR, name: kafkaErrorName(ERROR_CODES.UNKNOWN_SERVER_ERROR), message },
    { cause: err },
  );
}

/** Error name for the metrics hook: NONE, a Kafka error name, or NETWORK_EXCEPTION / REQUEST_TIMED_OUT. */
export function errorNameOf(err: unknown): string {
  return toKafkaRequestError(err).kafka.name;
}
