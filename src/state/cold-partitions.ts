// Finished reassignments kept in the view with their partitions packed: columns in typed arrays
// (outside V8's heap) instead of one object per partition. A finished record is kept for
// REASSIGNMENT_RETENTION_SECONDS (a day) and is never changed again but for its header
// (throttlesRemovedAt); at 100,000 partitions its objects are ~17 MiB of the heap that every
// full collection marks and V8 sizes the heap from, packed ~4 MiB outside it.
//
// A cold record is an ordinary ReassignmentRecord whose `partitions` is a getter: it unpacks on
// demand (~10-20 ms at 100,000) and keeps the array while anyone holds it (WeakRef), so two
// reads close together see the same entry objects, as the store's chunk comparison needs for a
// header-only rewrite. Readers that only need the count use partitionCount (no unpacking);
// per-record caches of counts and bytes are kept for the cold object itself (isCold).
import type { ReassignmentChunk } from './layout.js';
import type { PartitionState, ReassignmentPartitionRecord, ReassignmentRecord } from './records.js';
import { PARTITION_STATES } from './records.js';

type Rare = Pick<ReassignmentPartitionRecord, 'startError' | 'logDirs' | 'supersededBy'>;

/** The partitions of a record as columns. Entry i is rebuilt from index i of each. */
export interface PackedPartitions {
  readonly count: number;
  readonly topics: readonly string[];
  readonly topic: Uint32Array;
  readonly partition: Uint32Array;
  /** Replica lists (the interned ones the entries used: replica-list.ts), indexed by original/target. */
  readonly lists: readonly (readonly number[])[];
  readonly original: Uint32Array;
  readonly target: Uint32Array;
  /** Index in PARTITION_STATES. */
  readonly state: Uint8Array;
  /** Which optional fields an entry has (F_*). */
  readonly flags: Uint8Array;
  readonly bytesTotal: Float64Array;
  readonly startedAt: Float64Array;
  readonly endedAt: Float64Array;
  /** startError, logDirs, supersededBy of the few entries that have one. */
  readonly rare: ReadonlyMap<number, Rare>;
}

const F_BYTES = 1;
const F_BYTES_NULL = 2;
const F_STARTED = 4;
const F_ENDED = 8;
/** Entries packed between two yields. */
const PACK_SLICE = 5000;

const STATE_INDEX = new Map<PartitionState, number>(PARTITION_STATES.map((s, i) => [s, i]));

/** Packs `ps` (yielding through `pace` every PACK_SLICE entries). Replica lists are kept as the same arrays. */
export async function packPartitions(
  ps: readonly ReassignmentPartitionRecord[],
  pace: () => Promise<void> = () => Promise.resolve(),
): Promise<PackedPartitions> {
  const n = ps.length;
  const topics: string[] = [];
  const topicIndex = new Map<string, number>();
  const lists: (readonly number[])[] = [];
  const listIndex = new Map<readonly number[], number>();
  const listOf = (l: readonly number[]): number => {
    let i = listIndex.get(l);
    if (i === undefined) {
      i = lists.length;
      lists.push(l);
      listIndex.set(l, i);
    }
    return i;
  };
  const packed = {
    count: n,
    topics,
    topic: new Uint32Array(n),
    partition: new Uint32Array(n),
    lists,
    original: new Uint32Array(n),
    target: new Uint32Array(n),
    state: new Uint8Array(n),
    flags: new Uint8Array(n),
    bytesTotal: new Float64Array(n),
    startedAt: new Float64Array(n),
    endedAt: new Float64Array(n),
    rare: new Map<number, Rare>(),
  };
  for (let i = 0; i < n; i++) {
    if (i % PACK_SLICE === PACK_SLICE - 1) await pace();
    const p = ps[i];
    let t = topicIndex.get(p.topic);
    if (t === undefined) {
      t = topics.length;
      topics.push(p.topic);
      topicIndex.set(p.topic, t);
    }
    packed.topic[i] = t;
    packed.partition[i] = p.partition;
    packed.original[i] = listOf(p.original);
    packed.target[i] = listOf(p.target);
    packed.state[i] = STATE_INDEX.get(p.state)!;
    let f = 0;
    if (p.bytesTotal !== undefined) {
      f |= F_BYTES;
      if (p.bytesTotal === null) f |= F_BYTES_NULL;
      else packed.bytesTotal[i] = p.bytesTotal;
    }
    if (p.startedAt !== undefined) {
      f |= F_STARTED;
      packed.startedAt[i] = p.startedAt;
    }
    if (p.endedAt !== undefined) {
      f |= F_ENDED;
      packed.endedAt[i] = p.endedAt;
    }
    packed.flags[i] = f;
    if (p.startError !== undefined || p.logDirs !== undefined || p.supersededBy !== undefined) {
      const r: Rare = {};
      if (p.startError !== undefined) r.startError = p.startError;
      if (p.logDirs !== undefined) r.logDirs = p.logDirs;
      if (p.supersededBy !== undefined) r.supersededBy = p.supersededBy;
      packed.rare.set(i, r);
    }
  }
  return packed;
}

/** Whether the packed form can hold `ps` exactly (partition numbers as u32, known states). */
export function packable(ps: readonly ReassignmentPartitionRecord[]): boolean {
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i];
    if (!Number.isInteger(p.partition) || p.partition < 0 || p.partition > 0xffffffff || !STATE_INDEX.has(p.state)) return false;
    if (typeof p.topic !== 'string' || !Array.isArray(p.original) || !Array.isArray(p.target)) return false;
  }
  return true;
}

/** Entry i, as it was packed (optional fields only when they were there). */
function unpackEntry(packed: PackedPartitions, i: number): ReassignmentPartitionRecord {
  const f = packed.flags[i];
  const e: ReassignmentPartitionRecord = {
    topic: packed.topics[packed.topic[i]],
    partition: packed.partition[i],
    original: packed.lists[packed.original[i]],
    target: packed.lists[packed.target[i]],
    state: PARTITION_STATES[packed.state[i]],
  };
  if (f & F_BYTES) e.bytesTotal = f & F_BYTES_NULL ? null : packed.bytesTotal[i];
  if (f & F_STARTED) e.startedAt = packed.startedAt[i]!;
  if (f & F_ENDED) e.endedAt = packed.endedAt[i]!;
  const r = packed.rare.get(i);
  if (r) {
    if (r.startError !== undefined) e.startError = r.startError;
    if (r.logDirs !== undefined) e.logDirs = r.logDirs;
    if (r.supersededBy !== undefined) e.supersededBy = r.supersededBy;
  }
  return e;
}

export function unpackPartitions(packed: PackedPartitions): ReassignmentPartitionRecord[] {
  const out = new Array<ReassignmentPartitionRecord>(packed.count);
  for (let i = 0; i < packed.count; i++) out[i] = unpackEntry(packed, i);
  return out;
}

const packedOf = new WeakMap<ReassignmentRecord, PackedPartitions>();
/** Arrays a cold record unpacked, to what they were unpacked from: packing one again is a lookup. */
const unpackedFrom = new WeakMap<readonly ReassignmentPartitionRecord[], PackedPartitions>();

/** The packed form `ps` was unpacked from, if it was (a spread of a cold record, written again). */
export function packedFrom(ps: readonly ReassignmentPartitionRecord[]): PackedPartitions | undefined {
  return unpackedFrom.get(ps);
}

/**
 * `r` with its partitions packed: the same fields, `partitions` a getter that unpacks (and keeps
 * the array while it is held elsewhere). Enumerable, so a spread or JSON.stringify sees the
 * entries as with any record.
 */
export function coldRecord(r: ReassignmentRecord, packed: PackedPartitions): ReassignmentRecord {
  const { partitions: _p, ...rest } = r;
  let held: WeakRef<readonly ReassignmentPartitionRecord[]> | undefined;
  const cold = rest as ReassignmentRecord;
  Object.defineProperty(cold, 'partitions', {
    enumerable: true,
    configurable: false,
    get(): readonly ReassignmentPartitionRecord[] {
      let ps = held?.deref();
      if (!ps) {
        ps = unpackPartitions(packed);
        held = new WeakRef(ps);
        unpackedFrom.set(ps, packed);
      }
      return ps;
    },
  });
  packedOf.set(cold, packed);
  return cold;
}

/** Whether `r` is a cold record (its partitions packed): immutable, partitions unpacked on each uncached read. */
export function isCold(r: ReassignmentRecord): boolean {
  return packedOf.has(r);
}

/**
 * Calls `visit` with each partition's state, bytesTotal and whether it is superseded, from a cold
 * record's columns (no unpacking: ~17 MiB of objects at 100,000, for a count or a sum); false,
 * and nothing visited, when `r` is not cold.
 */
export function visitPacked(
  r: ReassignmentRecord,
  visit: (state: PartitionState, bytesTotal: number | null | undefined, superseded: boolean) => void,
): boolean {
  const packed = packedOf.get(r);
  if (!packed) return false;
  for (let i = 0; i < packed.count; i++) {
    const f = packed.flags[i];
    const bytes = f & F_BYTES ? (f & F_BYTES_NULL ? null : packed.bytesTotal[i]) : undefined;
    visit(PARTITION_STATES[packed.state[i]], bytes, !!packed.rare.get(i)?.supersededBy);
  }
  return true;
}

/** How many partitions `r` has, without unpacking a cold record's. */
export function partitionCount(r: ReassignmentRecord): number {
  return packedOf.get(r)?.count ?? r.partitions.length;
}

/** Cold chunks: where their entries are in the packed partitions. */
const chunkSource = new WeakMap<ReassignmentChunk, { packed: PackedPartitions; s: number; n: number }>();

/**
 * A chunk of a cold record (the store keeps every chunk it read or wrote): its entries come
 * from the record's partitions [s, s + n) when asked, so it does not hold its own.
 */
export function coldChunk(c: ReassignmentChunk, cold: ReassignmentRecord, s: number, n: number): ReassignmentChunk {
  // Not a spread of c: a cold chunk's own getter would unpack.
  const chunk = { kind: c.kind, v: c.v, reassignment: c.reassignment, writtenAt: c.writtenAt } as ReassignmentChunk;
  Object.defineProperty(chunk, 'partitions', { enumerable: true, configurable: false, get: () => cold.partitions.slice(s, s + n) });
  chunkSource.set(chunk, { packed: packedOf.get(cold)!, s, n });
  return chunk;
}

export function isColdChunk(c: ReassignmentChunk): boolean {
  return chunkSource.has(c);
}

/**
 * The packed partitions a header's chunks all come from, in order and entire (a header of a
 * cold record written again, e.g. throttlesRemovedAt by another instance): the record is then
 * assembled cold, without unpacking. undefined otherwise.
 */
export function coldSourceOf(
  chunks: readonly { s: number; n: number; chunk: ReassignmentChunk | undefined }[],
  count: number,
): PackedPartitions | undefined {
  let packed: PackedPartitions | undefined;
  let at = 0;
  for (const { s, n, chunk } of chunks) {
    const src = chunk && chunkSource.get(chunk);
    if (!src || (packed !== undefined && src.packed !== packed) || src.s !== s || src.n !== n || s !== at) return undefined;
    packed = src.packed;
    at += n;
  }
  return packed !== undefined && at === count && packed.count === count ? packed : undefined;
}
