// The messages between the HTTP thread and the reassignment worker thread (docs/worker-thread.md).
// Two kinds ride on the one port: byte streams (an HTTP exchange each, `s` its stream id) and
// calls (`id` the call id) for what is not an HTTP request: readiness, metrics, shutdown.
// Stream bytes travel as Uint8Arrays whose ArrayBuffer is transferred, never copied by the
// structured clone.
import type { StateHealth } from '../state/store.js';

/** A stream's bytes: the sender gives its buffer away (transfer list). */
export interface StreamData {
  t: 'data';
  s: number;
  b: Uint8Array;
}
/** The receiver consumed `n` bytes of the stream (flow control: the sender's window). */
export interface StreamAck {
  t: 'ack';
  s: number;
  n: number;
}
/** No more bytes from the sender (half close). */
export interface StreamEnd {
  t: 'end';
  s: number;
}
/** The stream is gone (either side); `reason` for the log. */
export interface StreamDestroy {
  t: 'destroy';
  s: number;
  reason?: string;
}
export type StreamMessage = StreamData | StreamAck | StreamEnd | StreamDestroy;

/** HTTP thread → worker only: a new HTTP exchange on stream `s`. */
export interface StreamOpen {
  t: 'open';
  s: number;
  /** The client's address (the worker's logs name it as the HTTP thread's would). */
  remoteAddress?: string | undefined;
  /** A client certificate the HTTP thread's TLS server verified (client-certificate authentication). */
  peerCertificate?: PeerCertificate | undefined;
}

/** What client-certificate authentication reads of a verified certificate (src/http/auth/client-cert.ts). */
export interface PeerCertificate {
  subject?: Record<string, string | string[]> | undefined;
  subjectaltname?: string | undefined;
  fingerprint256?: string | undefined;
}

/** What the HTTP thread may ask the worker, with each call's answer. */
export interface WorkerCalls {
  /** Read the state topic's new records (readiness); answers the store's health after it. */
  stateRefresh: { args: []; result: { refreshed: boolean; health: StateHealth } };
  /** The worker's prom-client registry, as getMetricsAsJSON() gives it. */
  metrics: { args: []; result: unknown[] };
  /** Shutdown began: event streams end, no new reconcile pass, webhooks stop. */
  drain: { args: []; result: null };
}
export type WorkerMethod = keyof WorkerCalls;

export interface CallRequest<M extends WorkerMethod = WorkerMethod> {
  t: 'call';
  id: number;
  method: M;
  args: WorkerCalls[M]['args'];
}
/** An error re-created on the other side with its name and message. */
export interface SerializedError {
  name: string;
  message: string;
}
export type CallResponse =
  { t: 'result'; id: number; ok: true; value: unknown } | { t: 'result'; id: number; ok: false; error: SerializedError };

/** TEST ONLY (GATEWAY_WORKER_TEST_HOOKS=1): the worker throws from its event loop, as a bug would. */
export interface CrashRequest {
  t: 'crash';
}

export type ToWorker = StreamOpen | StreamMessage | CallRequest | CrashRequest;

/** Worker → HTTP thread: the runtime is built, the reconciler started, the app warmed up. */
export interface WorkerReady {
  t: 'ready';
  stateTopic: string;
  health: StateHealth;
}
/**
 * Worker → HTTP thread: the worker's Kafka requests since the last batch (api, error name or
 * null, seconds), observed into the HTTP thread's kafka_gateway_kafka_request* metrics, so that
 * those count both threads' requests under one name.
 */
export interface KafkaRequestBatch {
  t: 'kafka-requests';
  requests: [api: string, error: string | null, seconds: number][];
}
/**
 * Worker → HTTP thread: summaries of reassignments (GET /reassignments/{id}'s JSON, no detail)
 * as the worker's view holds them at `at` (summary-posts.ts), for the HTTP thread to answer
 * from (summary-answers.ts). `set` replaces those ids' bodies, `drop` removes ids; `at` is the
 * state topic position they were rendered at, or null when the view says nothing now (every
 * GET then goes to the worker).
 */
export interface SummaryPost {
  t: 'summaries';
  at: { position: bigint; topicId: string } | null;
  set: [id: string, json: string][];
  drop: string[];
}
export type FromWorker = WorkerReady | StreamMessage | CallResponse | KafkaRequestBatch | SummaryPost;

/** The data the HTTP thread hands the worker at its start (workerData). */
export interface WorkerStartData {
  /** Environment values that differ from process.env (the embedded simulator's bootstrap servers). */
  env: Record<string, string>;
  /** As src/main.ts decides it: the Kafka cluster is not the embedded simulator (auth is then required). */
  externalKafka: boolean;
  /** Unthrottled copy speed per broker when known (the embedded demo's), for estimates. */
  bandwidthBytesPerSecond: number | null;
  /** After a forwarded exchange of at least this many bytes the worker releases its free heap pages (0: never; heap-releaser.ts). */
  heapReleaseBytes: number;
  /** The process's node flags (src/heap-release.ts leaves a flag given there as it is). */
  nodeFlags: string[];
  /** TEST ONLY: accept CrashRequest. */
  testHooks: boolean;
}

export function serializeError(err: unknown): SerializedError {
  return err instanceof Error ? { name: err.name, message: err.message } : { name: 'Error', message: String(err) };
}

/** The error again, with the same name (so `err.name` checks and logs read as on the other side). */
export function deserializeError(e: SerializedError): Error {
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}
