// The HTTP thread's side of the reassignment worker: starts the worker thread, sees it exit or
// throw, logs it and starts it again with backoff; opens the byte streams forwarded requests
// travel on and makes the calls (readiness, metrics, drain). While the worker is not ready,
// streams and calls fail with WorkerUnavailableError (the forwarder answers 503, /readyz says
// why). Nothing is lost by a restart: the worker rebuilds its view from the state topic.
import { Worker } from 'node:worker_threads';
import type { Logger } from '../observability/logger.js';
import type { StateHealth } from '../state/store.js';
import { PortStreams, type PortStream } from './port-stream.js';
import {
  deserializeError,
  type FromWorker,
  type KafkaRequestBatch,
  type StreamOpen,
  type SummaryPost,
  type ToWorker,
  type WorkerCalls,
  type WorkerMethod,
  type WorkerStartData,
} from './protocol.js';

/** The worker is starting or restarting: a forwarded request or a call cannot be served now. */
export class WorkerUnavailableError extends Error {
  override readonly name = 'WorkerUnavailableError';
}

export interface SupervisorOptions {
  start: WorkerStartData;
  logger: Logger;
  /** The worker's Kafka requests, for the HTTP thread's metrics. */
  onKafkaRequests?: (requests: KafkaRequestBatch['requests']) => void;
  /** The running worker's summary posts (summary-answers.ts); null: that worker ended. */
  onSummaries?: (m: SummaryPost | null) => void;
  /** First restart delay (doubles up to maxBackoffMs; back to this after a minute of running). */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** The worker's young generation (MiB; default WORKER_YOUNG_GENERATION_MB). */
  youngGenerationMb?: number;
  /** The entry file (default: reassignment-worker next to this file, .ts under tsx). */
  entry?: URL;
}

type Status =
  | { kind: 'starting'; since: number; after?: string }
  | { kind: 'ready'; since: number }
  | { kind: 'down'; since: number; why: string }
  | { kind: 'stopped'; since: number };

/**
 * The worker's young generation (V8 semi-spaces and the new large-object space), MiB. The
 * process's --max-semi-space-size=16 gave it up to 48: at 100,000 moving partitions 16 left both
 * threads at 398-425 MiB over a run, 8 at 393 (docs/worker-thread.md); its scavenges are more
 * frequent, and they pause the worker, never the HTTP thread.
 */
export const WORKER_YOUNG_GENERATION_MB = 8;

/** Calls wait at most this long (a worker busy for longer is as good as unavailable to /readyz). */
const CALL_TIMEOUT_MS = 10_000;
/** Running this long resets the backoff. */
const STABLE_AFTER_MS = 60_000;

const isTypeScript = import.meta.url.endsWith('.ts');

export class WorkerSupervisor {
  readonly #opts: SupervisorOptions;
  #worker: Worker | null = null;
  #status: Status = { kind: 'starting', since: Date.now() };
  #streams = new PortStreams();
  #nextStream = 1;
  readonly #calls = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  #nextCall = 1;
  #backoffMs: number;
  #restartTimer: NodeJS.Timeout | undefined;
  #health: StateHealth = { status: 'ok' };
  #readyWaiters: (() => void)[] = [];
  /** Worker threads started so far (1 + restarts). */
  starts = 0;

  constructor(opts: SupervisorOptions) {
    this.#opts = opts;
    this.#backoffMs = opts.initialBackoffMs ?? 250;
  }

  /** The running worker's resource limits (V8's, as Node reports them); undefined while none runs. */
  get resourceLimits(): Worker['resourceLimits'] | undefined {
    return this.#worker?.resourceLimits;
  }

  /**
   * The worker's V8 heap (used and reserved bytes), the memory outside it that its objects hold
   * (external) and V8's own (malloced), or null while none runs. Its RSS is the process's, with
   * the HTTP thread's: these tell how much of it is the worker's.
   */
  async heap(): Promise<{ used: number; total: number; external: number; malloced: number } | null> {
    const worker = this.#worker;
    if (!worker) return null;
    try {
      const h = await worker.getHeapStatistics();
      return { used: h.used_heap_size, total: h.total_heap_size, external: h.external_memory, malloced: h.malloced_memory };
    } catch {
      return null; // it ended meanwhile
    }
  }

  get ready(): boolean {
    return this.#status.kind === 'ready';
  }

  /** Why the worker cannot answer now (for /readyz and the 503s); null when it is ready. */
  unavailableReason(): string | null {
    const s = this.#status;
    switch (s.kind) {
      case 'ready':
        return null;
      case 'starting':
        return s.after === undefined
          ? 'the reassignment worker thread is starting'
          : `the reassignment worker thread is restarting (${s.after})`;
      case 'down':
        return `the reassignment worker thread is restarting (${s.why})`;
      case 'stopped':
        return 'the reassignment worker thread was stopped (shutdown)';
    }
  }

  /** Since when the worker is not ready (ms since the epoch). */
  get unavailableSince(): number {
    return this.#status.since;
  }

  /** The state store's health as the worker last reported it. */
  get health(): StateHealth {
    return this.#health;
  }

  start(): void {
    if (this.#status.kind === 'stopped') return;
    const prev = this.#status;
    // A restart keeps saying why: since the crash, and what it was.
    this.#status =
      prev.kind === 'down' ? { kind: 'starting', since: prev.since, after: prev.why } : { kind: 'starting', since: Date.now() };
    const entry = this.#opts.entry ?? new URL(isTypeScript ? './reassignment-worker.ts' : './reassignment-worker.js', import.meta.url);
    // Under tsx (tests, `npm run dev`) the worker needs tsx's loader too; the compiled gateway none.
    const execArgv = entry.pathname.endsWith('.ts') ? ['--import', import.meta.resolve('tsx')] : [];
    // Its own young generation, not the one the process's flags give the HTTP thread (bin/gateway.sh).
    const worker = new Worker(entry, {
      workerData: this.#opts.start,
      execArgv,
      name: 'reassignment-worker',
      resourceLimits: { maxYoungGenerationSizeMb: this.#opts.youngGenerationMb ?? WORKER_YOUNG_GENERATION_MB },
    });
    this.#worker = worker;
    this.starts++;
    worker.on('message', (m: FromWorker) => {
      // An ended worker's last posts say nothing about the next one's view.
      if (m.t === 'summaries') return void (this.#worker === worker && this.#opts.onSummaries?.(m));
      this.#receive(m);
    });
    // 'error' (an uncaught exception) is followed by 'exit'; the error says what happened.
    let thrown: Error | null = null;
    worker.on('error', (err: unknown) => {
      thrown = err instanceof Error ? err : new Error(String(err));
      this.#opts.logger.error('reassignment worker thread failed', { err: thrown.message, stack: thrown.stack });
    });
    worker.on('exit', (code) => this.#exited(worker, code, thrown));
  }

  #exited(worker: Worker, code: number, thrown: Error | null): void {
    if (this.#worker !== worker) return;
    this.#worker = null;
    this.#opts.onSummaries?.(null);
    const why = thrown ? `it failed: ${thrown.message}` : `it exited with code ${code}`;
    const gone = new WorkerUnavailableError(`the reassignment worker thread ended (${why})`);
    this.#streams.destroyAll(gone);
    this.#streams = new PortStreams();
    for (const [id, call] of this.#calls) {
      clearTimeout(call.timer);
      call.reject(gone);
      this.#calls.delete(id);
    }
    if (this.#status.kind === 'stopped') return;
    if (this.#status.kind === 'ready' && Date.now() - this.#status.since > STABLE_AFTER_MS)
      this.#backoffMs = this.#opts.initialBackoffMs ?? 250;
    const delay = this.#backoffMs;
    this.#backoffMs = Math.min(this.#backoffMs * 2, this.#opts.maxBackoffMs ?? 10_000);
    this.#status = {
      kind: 'down',
      since: this.#status.kind === 'starting' && this.#status.after !== undefined ? this.#status.since : Date.now(),
      why,
    };
    this.#opts.logger.error('reassignment worker thread ended; restarting it', { code, why, restartInMs: delay, starts: this.starts });
    this.#restartTimer = setTimeout(() => this.start(), delay);
  }

  #receive(m: FromWorker): void {
    switch (m.t) {
      case 'ready': {
        this.#status = { kind: 'ready', since: Date.now() };
        this.#health = m.health;
        if (this.starts > 1) this.#opts.logger.info('reassignment worker thread running again', { starts: this.starts });
        const waiters = this.#readyWaiters;
        this.#readyWaiters = [];
        for (const w of waiters) w();
        return;
      }
      case 'result': {
        const call = this.#calls.get(m.id);
        if (!call) return;
        this.#calls.delete(m.id);
        clearTimeout(call.timer);
        if (m.ok) call.resolve(m.value);
        else call.reject(deserializeError(m.error));
        return;
      }
      case 'kafka-requests':
        this.#opts.onKafkaRequests?.(m.requests);
        return;
      case 'summaries':
        return; // taken in start(), with the worker it came from
      default:
        this.#streams.receive(m);
    }
  }

  #send(m: ToWorker, transfer?: ArrayBuffer[]): void {
    // After an exit, the streams and calls are failed already; nothing more to send.
    this.#worker?.postMessage(m, transfer ?? []);
  }

  /** Resolves when the worker is (next) ready; at once if it is. */
  whenReady(): Promise<void> {
    if (this.ready) return Promise.resolve();
    return new Promise((resolve) => this.#readyWaiters.push(resolve));
  }

  /** A new byte stream to the worker's HTTP server (one forwarded exchange). */
  openStream(peer: Pick<StreamOpen, 'remoteAddress' | 'peerCertificate'> = {}): PortStream {
    if (!this.ready) throw new WorkerUnavailableError(this.unavailableReason() ?? 'the reassignment worker thread is not ready');
    const s = this.#nextStream++;
    const stream = this.#streams.create(s, (m, transfer) => this.#send(m, transfer), true);
    this.#send({ t: 'open', s, ...peer });
    return stream;
  }

  call<M extends WorkerMethod>(method: M, ...args: WorkerCalls[M]['args']): Promise<WorkerCalls[M]['result']> {
    if (!this.ready)
      return Promise.reject(new WorkerUnavailableError(this.unavailableReason() ?? 'the reassignment worker thread is not ready'));
    const id = this.#nextCall++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#calls.delete(id);
        reject(new WorkerUnavailableError(`the reassignment worker thread did not answer ${method} within ${CALL_TIMEOUT_MS} ms`));
      }, CALL_TIMEOUT_MS);
      this.#calls.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.#send({ t: 'call', id, method, args });
    });
  }

  /** Reads the state topic in the worker; its health is kept for health(). */
  async refreshState(): Promise<StateHealth> {
    const r = await this.call('stateRefresh');
    this.#health = r.health;
    if (!r.refreshed) throw new Error(r.health.status === 'ok' ? 'the state topic could not be read' : r.health.reason);
    return r.health;
  }

  /** TEST ONLY (GATEWAY_WORKER_TEST_HOOKS=1): the worker throws an uncaught error. */
  crashForTest(): void {
    this.#send({ t: 'crash' });
  }

  /** Shutdown, part 1: no new reconcile pass, event streams end; forwarded requests still served. */
  async drain(): Promise<void> {
    if (!this.ready) return;
    await this.call('drain').catch((err: unknown) =>
      this.#opts.logger.warn('reassignment worker did not drain', { err: err instanceof Error ? err.message : String(err) }),
    );
  }

  /** Shutdown, part 2: the worker ends and is not restarted. */
  async stop(): Promise<void> {
    this.#status = { kind: 'stopped', since: Date.now() };
    clearTimeout(this.#restartTimer);
    const worker = this.#worker;
    if (worker) await worker.terminate();
  }
}
