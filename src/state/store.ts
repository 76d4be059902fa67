// The gateway's view of its state topic, materialised like a KTable: read every record
// from the log start to the end offset once, then only what was appended since. Any
// instance builds the same view from the topic alone; nothing is kept on local disk.
//
// refresh() is how a reader makes sure it has seen every write acknowledged before the
// call: it reads up to the end offset it asked for first. That ordering is what makes the
// write-ahead ledger work across instances: a config value found in the cluster was set
// after its claim was acknowledged, so a refresh() started after reading the config sees
// the claim.
import { decodeValue, encodeValue, keyOf, parseKey, type LedgerRecord, type ReassignmentRecord, type StateValue, type ThrottleRequestRecord } from './records.js';

/** The log the store reads and writes (src/kafka/state-topic.ts implements it on Kafka). */
export interface StateLog {
  readonly name: string;
  ensure(): Promise<void>;
  offsets(): Promise<{ start: bigint; end: bigint }>;
  read(from: bigint, to: bigint): Promise<{ offset: bigint; key: string; value: string | null }[]>;
  write(records: { key: string; value: string | null }[]): Promise<bigint>;
}

export interface StateView {
  readonly reassignments: ReadonlyMap<string, ReassignmentRecord>;
  readonly throttleRequests: ReadonlyMap<string, ThrottleRequestRecord>;
  /** By ledger id (`topic/<name>`, `broker/<id>`). */
  readonly ledger: ReadonlyMap<string, LedgerRecord>;
}

/** Serialises refreshes: two overlapping reads would apply the same records twice, out of order. */
class Queue {
  #tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#tail.then(fn, fn);
    this.#tail = next.catch(() => undefined);
    return next;
  }
}

export class StateStore {
  readonly #log: StateLog;
  readonly #queue = new Queue();
  #position = 0n;
  #ready = false;
  readonly #maps = {
    reassignment: new Map<string, ReassignmentRecord>(),
    'throttle-request': new Map<string, ThrottleRequestRecord>(),
    ledger: new Map<string, LedgerRecord>(),
  };

  constructor(log: StateLog) {
    this.#log = log;
  }

  get topic(): string {
    return this.#log.name;
  }

  /** The view as of the last refresh or write of this instance (may lag other instances). */
  view(): StateView {
    return { reassignments: this.#maps.reassignment, throttleRequests: this.#maps['throttle-request'], ledger: this.#maps.ledger };
  }

  /** Reads everything appended up to now; afterwards view() holds every acknowledged write. */
  refresh(): Promise<StateView> {
    return this.#queue.run(async () => {
      if (!this.#ready) {
        await this.#log.ensure();
        this.#ready = true;
      }
      const { start, end } = await this.#log.offsets();
      if (start > this.#position) {
        // Records we never read were removed (retention or compaction below our position):
        // rebuild from scratch rather than keep a view with holes.
        for (const m of Object.values(this.#maps)) m.clear();
        this.#position = start;
      }
      if (end > this.#position) {
        for (const r of await this.#log.read(this.#position, end)) this.#apply(r.key, r.value);
        this.#position = end;
      }
      return this.view();
    });
  }

  #apply(key: string, raw: string | null): void {
    if (raw === null) {
      const k = parseKey(key);
      if (k) this.#maps[k.kind].delete(k.id);
      return;
    }
    const value = decodeValue(key, raw);
    if (!value) return;
    (this.#maps[value.kind] as Map<string, StateValue>).set(value.id, value);
  }

  /**
   * Writes the values (and tombstones for `deleteKeys`) in ONE produce request, acks=-1: one
   * record batch, so a reader sees all of them or none. Resolves once Kafka acknowledged.
   */
  async write(values: StateValue[], deleteKeys: string[] = []): Promise<void> {
    const records = [...values.map((v) => ({ key: keyOf(v), value: encodeValue(v) })), ...deleteKeys.map((key) => ({ key, value: null }))];
    if (records.length === 0) return;
    if (!this.#ready) await this.refresh();
    await this.#log.write(records);
    // Our own write is visible to us at once; the next refresh re-reads it in log order.
    for (const r of records) this.#apply(r.key, r.value);
  }
}
