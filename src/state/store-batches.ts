// The store's write and refresh plumbing: batches of one write produced together, values
// decoded ahead of applying them, and the queue that serialises refreshes.
import { CLAIM_PREFIX } from './claims.js';
import { FENCE_PREFIX } from './fence.js';
import { CHUNK_PREFIX, makePacer } from './layout.js';
import { decodeValue, type StateValue } from './records.js';

/** Produce batches of one write that are out at once (chunks; independent values). */
const BATCHES_IN_FLIGHT = 3;

/**
 * Batches of one write produced while earlier ones are out: at 100,000 partitions a start
 * writes ~12 batches of ~900 KB, and one at a time the gateway waited for each
 * acknowledgement before encoding the next. Each batch is applied to the view after the
 * previous one (`after`, settled either way), so the view follows the log's order; the first
 * failure is thrown by add() or drain() (later batches may still land: the caller writes no
 * header then, and chunks no header names are swept).
 */
export class BatchPipeline {
  #out: Promise<unknown>[] = [];
  #last: Promise<unknown> = Promise.resolve();

  /** Starts a batch (`write(after)`); waits while BATCHES_IN_FLIGHT are out. */
  async add(write: (after: Promise<unknown>) => Promise<unknown>): Promise<void> {
    const p = write(this.#last);
    p.catch(() => undefined); // awaited by add() or drain()
    this.#last = p.then(
      () => undefined,
      () => undefined,
    );
    this.#out.push(p);
    if (this.#out.length >= BATCHES_IN_FLIGHT) await this.#out.shift();
  }

  /** Waits for every batch; throws the first failure. */
  async drain(): Promise<void> {
    const out = this.#out;
    this.#out = [];
    const results = await Promise.allSettled(out);
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

/** Values decodeValue made of a batch's records, by key (undefined: not a valid value). */
export type Decoded = Map<string, StateValue | undefined>;

/**
 * decodeValue of the records #apply would decode (not claims, chunks or reassignment headers:
 * those are applied their own way), yielding every ~15 ms. The last record of a key wins, as
 * applying them in order does.
 */
export async function predecode(records: readonly { key: string; value: string | null }[]): Promise<Decoded> {
  const out: Decoded = new Map();
  const pace = makePacer();
  for (const r of records) {
    if (
      r.value === null ||
      r.key.startsWith(CLAIM_PREFIX) ||
      r.key.startsWith(FENCE_PREFIX) ||
      r.key.startsWith(CHUNK_PREFIX) ||
      r.key.startsWith('reassignment/')
    ) {
      out.delete(r.key);
      continue;
    }
    out.set(r.key, decodeValue(r.key, r.value));
    await pace();
  }
  return out;
}

/** Serialises refreshes: two overlapping reads would apply the same records twice, out of order. */
export class Queue {
  #tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#tail.then(fn, fn);
    this.#tail = next.catch(() => undefined);
    return next;
  }
}
