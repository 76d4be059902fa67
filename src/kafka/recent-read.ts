// A read of Kafka that pollers share. GET /reassignments and GET /throttles read what moves and
// every throttle config of the cluster on each call: at 100,000 moving partitions that is ~3 MB
// (ListPartitionReassignments) and ~5 MB (DescribeConfigs) to fetch, join and decode, and the
// console polls both every 2 s, per open page, per person. Here concurrent callers share one
// read, and a read is answered again to callers arriving within `maxAgeMs` of its start, unless
// this gateway wrote since (then the next caller reads anew): a caller never sees Kafka as it
// was before a change this gateway made and answered, and never older than `maxAgeMs` (a change
// made by someone else, or a move that ended in Kafka, shows within it).

/** How long a read of what moves, or of every throttle config, is answered again to pollers. */
export const POLLED_READ_MAX_AGE_MS = 1000;

/**
 * What this gateway writes and a RecentRead reads: configs (IncrementalAlterConfigs), moves
 * (AlterPartitionReassignments), topics (CreateTopics, DeleteTopics, CreatePartitions,
 * ElectLeaders: what a topic's description shows).
 */
export type WrittenResource = 'configs' | 'reassignments' | 'topics';

/**
 * The writes one gateway sent, per resource: owned by the KafkaAdmin implementation
 * (src/kafka/admin.ts), which counts in the methods every write goes through, and shared with
 * the gateways it makes (interactive(), forCaller()), which write to the same cluster.
 */
export class WriteCounts {
  readonly #counts: Record<WrittenResource, number> = { configs: 0, reassignments: 0, topics: 0 };

  /** Called when a write was answered (or failed: it may have been applied). */
  wrote(resource: WrittenResource): void {
    this.#counts[resource]++;
  }

  /** Changes after each write of `resource` (a RecentRead's `version`). */
  versionOf(resource: WrittenResource): number {
    return this.#counts[resource];
  }
}

export class RecentRead<T> {
  readonly #read: () => Promise<T>;
  readonly #maxAgeMs: number;
  readonly #version: () => number;
  readonly #now: () => number;
  #last: { startedAt: number; version: number; value: Promise<T> } | null = null;

  /**
   * @param read the read of Kafka
   * @param maxAgeMs how long after its start a read is answered again
   * @param version changes when this gateway wrote what `read` reads (KafkaAdmin.writeVersion)
   */
  constructor(read: () => Promise<T>, maxAgeMs: number, version: () => number, now: () => number = () => performance.now()) {
    this.#read = read;
    this.#maxAgeMs = maxAgeMs;
    this.#version = version;
    this.#now = now;
  }

  /** When the read it answers with started (the clock's time), or null when it has none. */
  get startedAt(): number | null {
    return this.#last?.startedAt ?? null;
  }

  /** The latest read if it is recent enough, else a new one. */
  get(): Promise<T> {
    const last = this.#last;
    if (last && last.version === this.#version() && this.#now() - last.startedAt <= this.#maxAgeMs) return last.value;
    return this.fresh();
  }

  /**
   * A new read, whatever the latest one: for a reader that must see Kafka as it is now (the
   * reconciler's pass, which reads every move anyway); the GETs that follow share it.
   */
  fresh(): Promise<T> {
    const entry = { startedAt: this.#now(), version: this.#version(), value: this.#read() };
    this.#last = entry;
    // A failed read is not answered again.
    entry.value.catch(() => {
      if (this.#last === entry) this.#last = null;
    });
    return entry.value;
  }
}

/**
 * RecentRead per key (a topic's description, GET /topics/{name}): concurrent callers of a key
 * share one read, answered again within `maxAgeMs` of its start unless this gateway wrote since.
 * Bounded: a read too old to be answered again is dropped when another starts (the map is in
 * start order), and at most `maxKeys` are kept. A failed read is not answered again.
 */
export class RecentReadsByKey<K, T> {
  readonly #read: (key: K) => Promise<T>;
  readonly #opts: { maxAgeMs: number; version: () => number; maxKeys: number; now: () => number };
  /** In the order their reads started (a key read anew moves to the end). */
  readonly #reads = new Map<K, RecentRead<T>>();

  constructor(read: (key: K) => Promise<T>, opts: { maxAgeMs: number; version: () => number; maxKeys: number; now?: () => number }) {
    this.#read = read;
    this.#opts = { ...opts, now: opts.now ?? (() => performance.now()) };
  }

  get(key: K): Promise<T> {
    const { maxAgeMs, version, maxKeys, now } = this.#opts;
    let recent = this.#reads.get(key);
    const startedAt = recent?.startedAt;
    const value = (recent ??= new RecentRead(() => this.#read(key), maxAgeMs, version, now)).get();
    if (recent.startedAt === startedAt) return value; // answered again
    // A new read: to the end of the order, after dropping what is too old to be answered again.
    this.#reads.delete(key);
    for (const [k, r] of this.#reads) {
      if (now() - (r.startedAt ?? -Infinity) <= maxAgeMs && this.#reads.size < maxKeys) break;
      this.#reads.delete(k);
    }
    this.#reads.set(key, recent);
    return value;
  }

  /** Keys held now (tests). */
  get size(): number {
    return this.#reads.size;
  }
}
