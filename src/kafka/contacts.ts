// How the gateway reaches "any broker" (issue 28: one bootstrap broker down cost every route
// intermittent 503s although the other brokers were up and known from Metadata).
//
// Bootstrap is only the first contact. KAFKA_BOOTSTRAP_SERVERS seeds the contact set; the first
// request sent to any broker is preceded by a Metadata request while no broker is known (so a
// gateway whose first calls were CreateTopics knows the cluster before its bootstrap broker can
// go), and every Metadata or DescribeCluster answer replaces the cluster's part of the set with
// the brokers it lists (a stopped or removed broker drops out). A request any broker may answer (Metadata,
// DescribeCluster, DescribeConfigs of topics, quotas, and the controller-bound requests that
// KRaft brokers forward) goes to, in order:
//   1. the broker that answered the last such request (one connection, not one per broker);
//   2. the other brokers of the last Metadata answer, by id;
//   3. the configured bootstrap servers not already listed (the seed, and the last resort
//      when every learned broker is gone, say after the whole cluster was replaced);
//   4. brokers in back-off (below), soonest-expiring first: tried only when all else failed,
//      so a cluster coming back is noticed at once and a full outage still names the error.
// An address whose connection could not be made (refused, reset, connect timeout) or was lost
// under a request is in back-off for 1 s, doubling per consecutive failure up to 10 s, and
// leaves step 1: the next requests go to a live broker without paying the failed connect again.
// A connection made to it clears the record. How a request moves on to the next address within
// its deadline, and which requests may, is the transport's part (./transport.ts).
//
// One BrokerContacts is shared by all the transports of a gateway (its own, the state topic's,
// the page reads' and every per-caller client's), so a client created after a broker stopped
// starts from what the gateway already learned, not from the bootstrap list alone.
import type { BrokerAddress } from './config.js';

export const CONTACT_BACKOFF_MS = 1000;
export const CONTACT_BACKOFF_MAX_MS = 10_000;

/** "host:port": brokers are told apart by address (a seed has no id). */
export function addressKey(b: BrokerAddress): string {
  return `${b.host}:${b.port}`;
}

interface Failure {
  /** Consecutive failures since the last connection made. */
  count: number;
  /** Date.now() until which the address is in back-off. */
  until: number;
}

export interface ContactOptions {
  /** Clock (Date.now; tests inject their own). */
  now?: () => number;
  backoffMs?: number;
  backoffMaxMs?: number;
}

export class BrokerContacts {
  readonly #seeds: readonly BrokerAddress[];
  readonly #now: () => number;
  readonly #backoffMs: number;
  readonly #backoffMaxMs: number;
  /** id -> address, as the last answer that listed the brokers had them. */
  #brokers = new Map<number, BrokerAddress>();
  #preferred: BrokerAddress | null = null;
  readonly #failures = new Map<string, Failure>();
  #learning: Promise<void> | null = null;

  constructor(seeds: readonly BrokerAddress[], opts: ContactOptions = {}) {
    this.#seeds = seeds.map((b) => ({ host: b.host, port: b.port }));
    this.#now = opts.now ?? Date.now;
    this.#backoffMs = opts.backoffMs ?? CONTACT_BACKOFF_MS;
    this.#backoffMaxMs = opts.backoffMaxMs ?? CONTACT_BACKOFF_MAX_MS;
  }

  /** The address of broker `id`, as last learned. */
  broker(id: number): BrokerAddress | undefined {
    return this.#brokers.get(id);
  }

  has(id: number): boolean {
    return this.#brokers.has(id);
  }

  /** Whether an answer listed the brokers yet (until then only the seeds are known). */
  get learned(): boolean {
    return this.#brokers.size > 0;
  }

  /**
   * Runs `learn` (a Metadata request) unless one is already running, for every transport of the
   * gateway; resolves when it is done, whatever its outcome (a failure shows in the caller's own
   * request).
   */
  learnOnce(learn: () => Promise<unknown>): Promise<void> {
    this.#learning ??= learn().then(
      () => void (this.#learning = null),
      () => void (this.#learning = null),
    );
    return this.#learning;
  }

  /** The cluster's brokers as an answer listed them; an empty list (no answer's content) changes nothing. */
  learn(brokers: readonly { id: number; host: string; port: number }[]): void {
    if (brokers.length === 0 || this.#same(brokers)) return;
    this.#brokers = new Map(brokers.map((b) => [b.id, { host: b.host, port: b.port }]));
    // A preferred broker the cluster no longer lists (stopped, removed) is not preferred.
    const p = this.#preferred;
    if (p && !this.#listed(p)) this.#preferred = null;
  }

  /** Whether `brokers` are the brokers known now (every Metadata answer lists them; most list the same). */
  #same(brokers: readonly { id: number; host: string; port: number }[]): boolean {
    if (brokers.length !== this.#brokers.size) return false;
    // In order, as the map was built from the last list: equal lists build an equal map.
    let i = 0;
    for (const [id, known] of this.#brokers) {
      const b = brokers[i++];
      if (b.id !== id || b.host !== known.host || b.port !== known.port) return false;
    }
    return true;
  }

  #listed(b: BrokerAddress): boolean {
    const key = addressKey(b);
    for (const a of this.#brokers.values()) if (addressKey(a) === key) return true;
    return this.#seeds.some((s) => addressKey(s) === key);
  }

  /** Addresses for a request any broker may answer, best first (see the header). Never empty. */
  candidates(): BrokerAddress[] {
    const now = this.#now();
    const seen = new Set<string>();
    const live: BrokerAddress[] = [];
    const cooling: { address: BrokerAddress; until: number }[] = [];
    const add = (b: BrokerAddress): void => {
      const key = addressKey(b);
      if (seen.has(key)) return;
      seen.add(key);
      const until = this.#failures.get(key)?.until ?? 0;
      if (until > now) cooling.push({ address: { ...b }, until });
      else live.push({ ...b });
    };
    if (this.#preferred) add(this.#preferred);
    for (const id of [...this.#brokers.keys()].sort((a, b) => a - b)) add(this.#brokers.get(id)!);
    for (const s of this.#seeds) add(s);
    cooling.sort((a, b) => a.until - b.until);
    return [...live, ...cooling.map((c) => c.address)];
  }

  /**
   * candidates()[0], without building the list when the preferred address is live (the common
   * case: one lookup per request instead of a sorted list of copies; issue 32). Not to be changed
   * by the caller.
   */
  first(): BrokerAddress {
    const p = this.#preferred;
    if (p && (this.#failures.size === 0 || !((this.#failures.get(addressKey(p))?.until ?? 0) > this.#now()))) return p;
    return this.candidates()[0];
  }

  /** A connection to `address` was made; `prefer`: it serves requests any broker may answer. */
  reached(address: BrokerAddress, prefer: boolean): void {
    // The preferred address answering again (most requests) changes nothing.
    if (this.#failures.size === 0 && (!prefer || address === this.#preferred)) return;
    this.#failures.delete(addressKey(address));
    if (prefer) this.#preferred = { host: address.host, port: address.port };
  }

  /** A connection to `address` could not be made, or was lost under a request. */
  failed(address: BrokerAddress): void {
    const key = addressKey(address);
    const count = (this.#failures.get(key)?.count ?? 0) + 1;
    const wait = Math.min(this.#backoffMaxMs, this.#backoffMs * 2 ** Math.min(count - 1, 30));
    this.#failures.set(key, { count, until: this.#now() + wait });
    if (this.#preferred && addressKey(this.#preferred) === key) this.#preferred = null;
  }

  /** Whether `address` is in back-off now (for tests and diagnostics). */
  backingOff(address: BrokerAddress): boolean {
    return (this.#failures.get(addressKey(address))?.until ?? 0) > this.#now();
  }
}
