// Layout of a reassignment in the state topic (record version 2). Pure: encodes a record into
// messages and assembles one from them; src/state/store.ts does the I/O.
//
// A reassignment is a HEADER under `reassignment/<id>` (every field but the partitions, and
// the throttle demand's topic lists when they are small) plus CHUNKS:
//
//   reassignment-chunk/<id>/p<i>.<gen>   partitions [s, s+n) of the record, n <= 500
//   reassignment-chunk/<id>/d<i>.<gen>   a slice of the throttle demand's topic lists (only
//                                        when they would not fit the header: > 64 KB)
//
// The header names the exact chunk keys it is made of (`layout`). Chunk keys are never
// rewritten: a changed chunk is written under a NEW key (a new generation `gen`), BEFORE the
// header that names it; the header's batch tombstones the keys the previous header named and
// the new one does not. So:
// - every message is bounded (CHUNK_MAX_PARTITIONS partitions of bounded size; the header holds
//   one small ref per chunk), well under Kafka's default max.message.bytes (1 MiB);
// - a change to a few partitions rewrites only their chunk(s) and the header;
// - a reader assembles a record only from a header, with exactly the chunks it names: it sees
//   the previous version or the next, never a mix, and never a record whose header is not
//   written yet (a crash between chunks leaves unreferenced chunks, swept after a grace
//   period; see StateStore.sweepOrphanChunks);
// - compaction keeps the latest header and the chunks it names (each under its own key); the
//   replaced chunks are tombstoned, so what remains is exactly the live state.
import { yieldTurn } from '../event-loop-turns.js';
import { internReplicaList } from '../domain/replica-list.js';
import type { ThrottleDemand, TopicThrottleDemand } from '../domain/reassignment/throttle-ledger.js';
import { RECORD_VERSION, type ReassignmentPartitionRecord, type ReassignmentRecord } from './records.js';

export const CHUNK_PREFIX = 'reassignment-chunk/';
/** Partitions per chunk at most. */
export const CHUNK_MAX_PARTITIONS = 500;
/** A chunk is cut before its estimated size passes this (so later growth stays far under the bound). */
export const CHUNK_TARGET_BYTES = 192 * 1024;
/** No message the store writes is larger (Kafka's default max.message.bytes is 1,048,588). */
export const MESSAGE_MAX_BYTES = 900 * 1024;
/** Demand topic lists up to this size stay inline in the header. */
export const DEMAND_INLINE_BYTES = 64 * 1024;
/** Entries of one demand list per chunk fragment. */
const DEMAND_SLICE = 10_000;
/** Error messages kept per partition (bounds a partition's size). */
export const START_ERROR_MESSAGE_MAX = 500;

/** Partitions [s, s+n) are in chunk i of generation g. */
export interface ChunkRef {
  i: number;
  g: string;
  s: number;
  n: number;
}
export interface DemandRef {
  i: number;
  g: string;
}

export interface ReassignmentLayout {
  partitionCount: number;
  chunks: ChunkRef[];
  /** null: the demand's topic lists are inline in the header. */
  demand: DemandRef[] | null;
}

/** The header as stored: the record without partitions (and, with `layout.demand`, without the demand's topics). */
export interface ReassignmentHeader extends Omit<ReassignmentRecord, 'partitions' | 'throttleDemand'> {
  throttleDemand: { topics?: ThrottleDemand['topics']; brokers: ThrottleDemand['brokers'] } | null;
  layout: ReassignmentLayout;
}

export interface ReassignmentChunk {
  kind: 'reassignment-chunk';
  v: number;
  reassignment: string;
  writtenAt: number;
  partitions?: ReassignmentPartitionRecord[];
  /** [topic, part of its lists]; the parts of one topic are concatenated in chunk order. */
  demand?: [string, TopicThrottleDemand][];
}

export const chunkKey = (id: string, kind: 'p' | 'd', i: number, g: string): string => `${CHUNK_PREFIX}${id}/${kind}${i}.${g}`;

/** The reassignment a chunk key belongs to, or undefined. */
export function chunkOwner(key: string): string | undefined {
  if (!key.startsWith(CHUNK_PREFIX)) return undefined;
  const rest = key.slice(CHUNK_PREFIX.length);
  const slash = rest.lastIndexOf('/');
  return slash > 0 ? rest.slice(0, slash) : undefined;
}

/** Every chunk key a header names. */
export function chunkKeysOf(h: Pick<ReassignmentHeader, 'id' | 'layout'>): string[] {
  return [
    ...h.layout.chunks.map((c) => chunkKey(h.id, 'p', c.i, c.g)),
    ...(h.layout.demand ?? []).map((d) => chunkKey(h.id, 'd', d.i, d.g)),
  ];
}

export function decodeHeader(key: string, parsed: unknown): ReassignmentHeader | undefined {
  const h = parsed as ReassignmentHeader;
  if (typeof h !== 'object' || h === null || h.kind !== 'reassignment' || typeof h.v !== 'number' || h.v > RECORD_VERSION) return undefined;
  if (key !== `reassignment/${h.id}` || typeof h.layout !== 'object' || h.layout === null || !Array.isArray(h.layout.chunks))
    return undefined;
  return h;
}

export function decodeChunk(key: string, raw: string): ReassignmentChunk | undefined {
  let c: ReassignmentChunk;
  try {
    c = JSON.parse(raw) as ReassignmentChunk;
  } catch {
    return undefined;
  }
  if (typeof c !== 'object' || c === null || c.kind !== 'reassignment-chunk' || typeof c.v !== 'number' || c.v > RECORD_VERSION)
    return undefined;
  if (chunkOwner(key) !== c.reassignment) return undefined;
  // Replica lists shared with every other record naming the same list (replica-list.ts).
  if (Array.isArray(c.partitions)) {
    for (const p of c.partitions) {
      if (typeof p !== 'object' || p === null) continue;
      if (Array.isArray(p.original)) p.original = internReplicaList(p.original);
      if (Array.isArray(p.target)) p.target = internReplicaList(p.target);
    }
  }
  return c;
}

/** The record a header and its chunks make; undefined when a chunk it names is missing. */
export function assemble(h: ReassignmentHeader, chunk: (key: string) => ReassignmentChunk | undefined): ReassignmentRecord | undefined {
  const partitions: ReassignmentPartitionRecord[] = [];
  for (const ref of h.layout.chunks) {
    const c = chunk(chunkKey(h.id, 'p', ref.i, ref.g));
    if (!c?.partitions || c.partitions.length !== ref.n) return undefined;
    for (const p of c.partitions) partitions.push(p);
  }
  if (partitions.length !== h.layout.partitionCount) return undefined;
  return assembleWith(h, partitions, chunk);
}

/** The record a header makes with `partitions` (its chunks' entries, or a cold record's); undefined when a demand chunk is missing. */
export function assembleWith(
  h: ReassignmentHeader,
  partitions: ReassignmentRecord['partitions'],
  chunk: (key: string) => ReassignmentChunk | undefined,
): ReassignmentRecord | undefined {
  let throttleDemand: ThrottleDemand | null = null;
  if (h.throttleDemand) {
    let topics = h.throttleDemand.topics ?? {};
    if (h.layout.demand) {
      const merged: Record<string, { leader?: TopicThrottleDemand['leader']; follower?: TopicThrottleDemand['follower'] }> = {};
      for (const ref of h.layout.demand) {
        const c = chunk(chunkKey(h.id, 'd', ref.i, ref.g));
        if (!c?.demand) return undefined;
        for (const [topic, part] of c.demand) {
          const cur = (merged[topic] ??= {});
          for (const side of ['leader', 'follower'] as const) {
            const v = part[side];
            if (v === undefined) continue;
            const prev = cur[side];
            // A topic's list in one fragment (the usual case) is shared with the chunk, not
            // copied: records are never changed in place, and a copy doubled what a reader of
            // a 100,000-partition move holds (~400,000 "p:b" strings).
            cur[side] = v === '*' || prev === '*' ? '*' : prev === undefined ? v : [...prev, ...v];
          }
        }
      }
      topics = merged;
    }
    throttleDemand = { topics, brokers: h.throttleDemand.brokers };
  }
  const { layout: _layout, throttleDemand: _d, ...rest } = h;
  return { ...rest, partitions, throttleDemand };
}

function estimate(p: ReassignmentPartitionRecord): number {
  return (
    140 +
    p.topic.length +
    6 * (p.original.length + p.target.length) +
    (p.startError ? 120 + p.startError.message.length : 0) +
    (p.supersededBy ? 60 : 0)
  );
}

/** Cuts partitions into chunks: at most CHUNK_MAX_PARTITIONS, cut before CHUNK_TARGET_BYTES (estimated). */
export function cutChunks(partitions: readonly ReassignmentPartitionRecord[]): { s: number; n: number }[] {
  const out: { s: number; n: number }[] = [];
  let s = 0;
  let bytes = 0;
  for (let i = 0; i < partitions.length; i++) {
    const e = estimate(partitions[i]);
    if (i > s && (i - s >= CHUNK_MAX_PARTITIONS || bytes + e > CHUNK_TARGET_BYTES)) {
      out.push({ s, n: i - s });
      s = i;
      bytes = 0;
    }
    bytes += e;
  }
  if (partitions.length > s || partitions.length === 0) out.push({ s, n: partitions.length - s });
  return out;
}

function demandFragments(topics: ThrottleDemand['topics']): [string, TopicThrottleDemand][][] {
  const frags: [string, TopicThrottleDemand][] = [];
  for (const [topic, d] of Object.entries(topics)) {
    const sides = (['leader', 'follower'] as const).filter((s) => d[s] !== undefined);
    const long = Math.max(0, ...sides.map((s) => (d[s] === '*' ? 1 : (d[s] as readonly string[]).length)));
    if (long <= DEMAND_SLICE) {
      frags.push([topic, d]);
      continue;
    }
    for (let o = 0; o < long; o += DEMAND_SLICE) {
      const part: { leader?: TopicThrottleDemand['leader']; follower?: TopicThrottleDemand['follower'] } = {};
      for (const s of sides) {
        const v = d[s]!;
        if (v === '*') {
          if (o === 0) part[s] = '*';
        } else if (o < v.length || o === 0) part[s] = v.slice(o, o + DEMAND_SLICE);
      }
      frags.push([topic, part]);
    }
  }
  // Pack fragments into chunks of about CHUNK_TARGET_BYTES.
  const chunks: [string, TopicThrottleDemand][][] = [];
  let cur: [string, TopicThrottleDemand][] = [];
  let bytes = 0;
  for (const f of frags) {
    const e =
      f[0].length +
      40 +
      14 * ((f[1].leader === '*' ? 1 : (f[1].leader?.length ?? 0)) + (f[1].follower === '*' ? 1 : (f[1].follower?.length ?? 0)));
    if (cur.length && bytes + e > CHUNK_TARGET_BYTES) {
      chunks.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(f);
    bytes += e;
  }
  if (cur.length) chunks.push(cur);
  return chunks;
}

/**
 * Yields to the event loop when the caller has run for more than `budgetMs` since the last
 * yield: call `await pace()` inside long loops so that no task blocks the loop for long.
 */
export function makePacer(budgetMs = 15): () => Promise<void> {
  let since = performance.now();
  const runner = {};
  return async () => {
    if (performance.now() - since < budgetMs) return;
    await yieldTurn(runner);
    since = performance.now();
  };
}

export interface EncodedReassignment {
  header: ReassignmentHeader;
  /** Chunk messages to write BEFORE the header. */
  chunks: { key: string; value: string; chunk: ReassignmentChunk }[];
  headerValue: string;
  /** Chunk keys the previous header named that this one does not: tombstoned with the header. */
  obsolete: string[];
}

function checkSize(key: string, value: string): void {
  if (Buffer.byteLength(value) > MESSAGE_MAX_BYTES)
    throw new RangeError(`state record ${key} would be ${Buffer.byteLength(value)} bytes, over the bound of ${MESSAGE_MAX_BYTES}`);
}

/**
 * Encodes `next` against the version the store holds (`prev` with its header): only chunks
 * holding a partition entry that is not the same object as before are written, under a new
 * generation `gen`; the rest are named again as they are.
 */
export async function encodeReassignment(
  next: ReassignmentRecord,
  prev: { record: ReassignmentRecord; header: ReassignmentHeader } | undefined,
  gen: string,
  now: number,
  pace: () => Promise<void> = () => Promise.resolve(),
): Promise<EncodedReassignment> {
  const chunks: EncodedReassignment['chunks'] = [];
  const refs: ChunkRef[] = [];
  const writeChunk = async (i: number, s: number, n: number) => {
    const chunk: ReassignmentChunk = {
      kind: 'reassignment-chunk',
      v: RECORD_VERSION,
      reassignment: next.id,
      writtenAt: now,
      partitions: next.partitions.slice(s, s + n),
    };
    const key = chunkKey(next.id, 'p', i, gen);
    const raw = JSON.stringify(chunk);
    checkSize(key, raw);
    chunks.push({ key, value: raw, chunk });
    refs.push({ i, g: gen, s, n });
    await pace();
  };
  const samePartitions =
    prev !== undefined &&
    prev.header.layout.partitionCount === next.partitions.length &&
    prev.record.partitions.length === next.partitions.length;
  if (samePartitions) {
    const before = prev.record.partitions;
    for (const ref of prev.header.layout.chunks) {
      let dirty = false;
      for (let k = ref.s; k < ref.s + ref.n; k++) {
        if (next.partitions[k] !== before[k]) {
          dirty = true;
          break;
        }
      }
      if (dirty) await writeChunk(ref.i, ref.s, ref.n);
      else refs.push(ref);
    }
  } else {
    const cuts = cutChunks(next.partitions);
    for (let i = 0; i < cuts.length; i++) await writeChunk(i, cuts[i].s, cuts[i].n);
  }

  let demand: DemandRef[] | null = null;
  let headerDemand: ReassignmentHeader['throttleDemand'] = null;
  if (next.throttleDemand) {
    const reuse =
      prev !== undefined && prev.record.throttleDemand !== null && prev.record.throttleDemand.topics === next.throttleDemand.topics;
    if (reuse && prev.header.layout.demand) {
      demand = prev.header.layout.demand;
      headerDemand = { brokers: next.throttleDemand.brokers };
    } else {
      const inline = JSON.stringify(next.throttleDemand.topics);
      if (inline.length <= DEMAND_INLINE_BYTES) headerDemand = next.throttleDemand;
      else {
        demand = [];
        headerDemand = { brokers: next.throttleDemand.brokers };
        const frags = demandFragments(next.throttleDemand.topics);
        for (let i = 0; i < frags.length; i++) {
          const key = chunkKey(next.id, 'd', i, gen);
          const chunk: ReassignmentChunk = {
            kind: 'reassignment-chunk',
            v: RECORD_VERSION,
            reassignment: next.id,
            writtenAt: now,
            demand: frags[i],
          };
          const raw = JSON.stringify(chunk);
          checkSize(key, raw);
          chunks.push({ key, value: raw, chunk });
          demand.push({ i, g: gen });
          await pace();
        }
      }
    }
  }
  const { partitions: _p, throttleDemand: _t, ...rest } = next;
  const header: ReassignmentHeader = {
    ...rest,
    v: RECORD_VERSION,
    throttleDemand: headerDemand,
    layout: { partitionCount: next.partitions.length, chunks: refs, demand },
  };
  const headerValue = JSON.stringify(header);
  checkSize(`reassignment/${next.id}`, headerValue);
  const keep = new Set(chunkKeysOf(header));
  const obsolete = prev ? chunkKeysOf(prev.header).filter((k) => !keep.has(k)) : [];
  return { header, chunks, headerValue, obsolete };
}

/** Truncates a start error's message to START_ERROR_MESSAGE_MAX characters (bounds a partition entry). */
export function boundedError(e: { code: number; name: string; message: string }): { code: number; name: string; message: string } {
  return e.message.length <= START_ERROR_MESSAGE_MAX ? e : { ...e, message: `${e.message.slice(0, START_ERROR_MESSAGE_MAX - 1)}…` };
}
