// The Metadata answer as the health interlocks read it (src/kafka/replica-health.ts): every
// partition of the cluster is looked at, but only those with something to look at are made into
// objects. The wire grammar is metadata.ts's (v11-v13); this is another decoder of the same bytes.
//
// Why: the interlocks read every topic with its ISRs, at each reconcile pass of a paced
// reassignment and at each start (issue 30). At 200,000 partitions the full decode made 200,000
// objects and 600,000 arrays per read, nearly all of healthy partitions that the walk only
// counts; a start that moved 100,000 of them was +26-50 % slower than without the read (issue
// 29's bench). Read with `onlyTroubled`, a healthy partition (a leader, an ISR as long as its
// replica list) costs a few reads of its bytes: its replicas are checked against the live brokers
// in place (a broker named there but not live is gone), and it is counted. Without it, every
// partition is listed (GET /brokers counts them per broker; the re-reads of suspect topics).
import type { Steps } from '../../domain/steps.js';
import { MalformedResponseError, type WireReader } from '../wire/reader.js';
import { ENTRIES_PER_STEP } from '../wire/slices.js';
import type { PartitionPlacement } from './metadata-answer.js';
import { topicHead, topLevelError } from './metadata.js';

export interface HealthAnswer {
  /** Broker ids the answer lists (live brokers). */
  brokers: number[];
  /**
   * Topics without a topic-level error, partitions in the answer's order: every partition, or
   * with `onlyTroubled` only those without a leader or with an ISR shorter than their replica list.
   */
  topics: { name: string; partitions: PartitionPlacement[] }[];
  /** Partitions in the answer (of topics without an error), listed or not. */
  partitions: number;
  /** Brokers named in the replica lists of the partitions left out that the answer does not list, ascending. */
  goneUnlisted: number[];
}

/** An INT32 array's items from `at` (n of them), in a sized array. */
function int32s(buf: Buffer, at: number, n: number): number[] {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = buf.readInt32BE(at + 4 * i);
  return out;
}

/** A COMPACT_ARRAY of INT32 skipped: where its items start and how many (a null array as empty). */
function int32Span(r: WireReader): { at: number; n: number } {
  const n = Math.max(0, r.compactLength());
  if (n * 4 > r.remaining) throw new MalformedResponseError('response ends inside an INT32 array');
  const at = r.pos;
  r.pos += n * 4;
  return { at, n };
}

/** The response after its header, in steps (a yield every ENTRIES_PER_STEP partitions). */
export function* decodeReplicaHealthSteps(r: WireReader, version: number, onlyTroubled: boolean): Steps<HealthAnswer> {
  r.int32(); // throttle_time_ms
  const brokers: number[] = [];
  const brokerCount = r.compactLength();
  for (let b = 0; b < brokerCount; b++) {
    brokers.push(r.int32());
    r.compactString(); // host
    r.int32(); // port
    r.compactNullableString(); // rack
    r.skipTaggedFields();
  }
  r.compactNullableString(); // cluster_id
  r.int32(); // controller_id
  const live = new Set(brokers);
  const gone = new Set<number>();
  const topics: HealthAnswer['topics'] = [];
  let partitions = 0;
  const topicCount = r.compactLength();
  let n = 0;
  for (let t = 0; t < topicCount; t++) {
    const { errorCode, name, count } = topicHead(r);
    const ok = errorCode === 0 && name !== null;
    const every = ok && !onlyTroubled;
    const listed: PartitionPlacement[] = every ? new Array<PartitionPlacement>(count) : [];
    const buf = r.buf;
    for (let p = 0; p < count; p++) {
      // error_code (not kept: leader -1 says what the interlocks need), partition_index,
      // leader_id, leader_epoch: inside the buffer (topicHead's count check).
      const at = r.pos;
      const partition = buf.readInt32BE(at + 2);
      const leader = buf.readInt32BE(at + 6);
      r.pos = at + 14;
      const replicas = int32Span(r);
      const isr = int32Span(r);
      const offline = int32Span(r);
      r.skipTaggedFields();
      if (every || leader < 0 || isr.n < replicas.n) {
        const placed: PartitionPlacement = {
          partition,
          leader,
          replicas: int32s(buf, replicas.at, replicas.n),
          isr: int32s(buf, isr.at, isr.n),
          offlineReplicas: int32s(buf, offline.at, offline.n),
        };
        if (every) listed[p] = placed;
        else listed.push(placed);
      } else if (ok) {
        for (let i = 0; i < replicas.n; i++) {
          const b = buf.readInt32BE(replicas.at + 4 * i);
          if (!live.has(b)) gone.add(b);
        }
      }
      if (++n % ENTRIES_PER_STEP === 0) yield;
    }
    r.int32(); // topic_authorized_operations, not asked for
    r.skipTaggedFields();
    if (!ok) continue;
    partitions += count;
    topics.push({ name, partitions: listed });
  }
  topLevelError(r, version);
  r.skipTaggedFields();
  return { brokers, topics, partitions, goneUnlisted: [...gone].sort((a, b) => a - b) };
}
