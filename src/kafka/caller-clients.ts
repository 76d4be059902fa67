// One Kafka client per REST caller, so each caller's requests carry its own client id and
// broker-side client-id quotas (KIP-599's controller mutation quota included) charge that
// caller alone (src/domain/caller-client-id.ts renders the id).
//
// A client id is fixed per connection in @platformatic/kafka (it goes into every request
// header), so "per caller" means a client instance - its own connection pool - per caller.
// They are kept in a bounded LRU: at most `maxClients` instances; the least recently used
// idle one is closed to make room, and any instance idle for `idleMs` is closed by a sweep.
// A client is never closed under a request: each call leases it (in-flight count), and an
// evicted client with calls in flight is closed when its last call ends. When every
// client is busy the pool briefly exceeds its bound instead of failing a request.
import type { KafkaGateway } from './types.js';

export interface CallerClientsOptions {
  /** Most client instances kept open at once (KAFKA_CALLER_CLIENTS_MAX). */
  maxClients: number;
  /** Close a client unused for this long (KAFKA_CALLER_CLIENT_IDLE_MS). */
  idleMs: number;
}

export const DEFAULT_CALLER_CLIENTS: CallerClientsOptions = Object.freeze({ maxClients: 64, idleMs: 300_000 });

interface Entry {
  readonly gateway: KafkaGateway;
  inFlight: number;
  lastUsedMs: number;
  evicted: boolean;
}

export class CallerClients {
  readonly #create: (clientId: string) => KafkaGateway;
  readonly #opts: CallerClientsOptions;
  readonly #now: () => number;
  /** Insertion order = recency order (a touched entry is re-inserted at the end). */
  readonly #entries = new Map<string, Entry>();
  readonly #closing = new Set<Promise<void>>();
  #sweeper: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(create: (clientId: string) => KafkaGateway, opts: Partial<CallerClientsOptions> = {}, now: () => number = Date.now) {
    this.#create = create;
    this.#opts = { ...DEFAULT_CALLER_CLIENTS, ...opts };
    if (!Number.isInteger(this.#opts.maxClients) || this.#opts.maxClients < 1) throw new RangeError('maxClients must be an integer >= 1');
    if (!(this.#opts.idleMs > 0)) throw new RangeError('idleMs must be > 0');
    this.#now = now;
  }

  /** Client ids with an open client, least recently used first (for tests and diagnostics). */
  openClientIds(): string[] {
    return [...this.#entries.keys()];
  }

  /** A KafkaGateway that sends every call as `clientId`; cheap, make one per request. */
  view(clientId: string): KafkaGateway {
    const lease = <T>(fn: (g: KafkaGateway) => Promise<T>): Promise<T> => this.#lease(clientId, fn);
    const view: KafkaGateway = {
      describeCluster: () => lease((g) => g.describeCluster()),
      listTopics: () => lease((g) => g.listTopics()),
      describeTopic: (name) => lease((g) => g.describeTopic(name)),
      createTopics: (topics, opts) => lease((g) => g.createTopics(topics, opts)),
      deleteTopics: (names) => lease((g) => g.deleteTopics(names)),
      createPartitions: (increases, opts) => lease((g) => g.createPartitions(increases, opts)),
      ping: () => lease((g) => g.ping()),
      forCaller: (other) => (other === clientId ? view : this.view(other)),
      // The pool owns the clients' lifecycle; closing a view closes nothing.
      close: () => Promise.resolve(),
    };
    return view;
  }

  async #lease<T>(clientId: string, fn: (g: KafkaGateway) => Promise<T>): Promise<T> {
    const entry = this.#acquire(clientId);
    try {
      return await fn(entry.gateway);
    } finally {
      entry.inFlight--;
      entry.lastUsedMs = this.#now();
      if (entry.evicted && entry.inFlight === 0) this.#closeGateway(entry.gateway);
    }
  }

  #acquire(clientId: string): Entry {
    if (this.#closed) throw new Error('Kafka caller clients are closed');
    let entry = this.#entries.get(clientId);
    if (entry) {
      this.#entries.delete(clientId); // re-inserted below: now the most recently used
    } else {
      entry = { gateway: this.#create(clientId), inFlight: 0, lastUsedMs: this.#now(), evicted: false };
    }
    this.#entries.set(clientId, entry);
    entry.inFlight++;
    entry.lastUsedMs = this.#now();
    this.#evictOverflow();
    this.#startSweeper();
    return entry;
  }

  /** Close least recently used idle clients while over the bound. */
  #evictOverflow(): void {
    for (const [id, e] of this.#entries) {
      if (this.#entries.size <= this.#opts.maxClients) return;
      if (e.inFlight > 0) continue;
      this.#evict(id, e);
    }
  }

  #evict(id: string, e: Entry): void {
    this.#entries.delete(id);
    e.evicted = true;
    if (e.inFlight === 0) this.#closeGateway(e.gateway);
  }

  /** Close clients idle for idleMs; exposed for tests, run by a timer otherwise. */
  sweepIdle(): void {
    const cutoff = this.#now() - this.#opts.idleMs;
    for (const [id, e] of this.#entries) if (e.inFlight === 0 && e.lastUsedMs <= cutoff) this.#evict(id, e);
    if (this.#entries.size === 0) this.#stopSweeper();
  }

  #startSweeper(): void {
    if (this.#sweeper) return;
    this.#sweeper = setInterval(() => this.sweepIdle(), Math.max(1000, Math.floor(this.#opts.idleMs / 2)));
    this.#sweeper.unref(); // never keeps the process alive
  }

  #stopSweeper(): void {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  #closeGateway(g: KafkaGateway): void {
    const p = g.close().catch(() => undefined);
    this.#closing.add(p);
    void p.finally(() => this.#closing.delete(p));
  }

  /** Closes every client (in-flight calls fail as on any closed client). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stopSweeper();
    const all = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all([...all.map((e) => e.gateway.close().catch(() => undefined)), ...this.#closing]);
  }
}
