// The simulator's codec (src/sim/protocol/codec.ts) on the answers of a 100,000-partition
// reassignment on 12 brokers, against the codec as it was (test/sim/protocol/codec-reference.ts,
// the schema walked per field per struct) in the same run:
//   - AlterPartitionReassignments request v0 moving SIZE partitions (RF 3) and its response v0;
//   - ListPartitionReassignments response v0 listing SIZE moving partitions (3 -> 3, one changed);
//   - Metadata response v12 of SIZE/1000 topics x 1000 partitions, RF 3, 12 brokers;
//   - DescribeLogDirs response v4 of a broker holding SIZE/4 partitions in two log dirs, 1% of
//     them with a future replica in the other dir.
// Each is encoded from the same value and decoded from the same bytes by both codecs, one
// after the other in every repetition; the bytes are checked identical before timing. The
// codec is synchronous, so each encode or decode is also one event-loop block of that length.
// Prints min/median/max ms over REPS (after WARMUP untimed rounds) and the ratio of the
// medians new / reference. With --expose-gc (the npm script passes it) each run starts after a
// full GC, so a run's time includes the collections its own garbage causes, not the last one's.
//
//   npm run bench:sim-codec               (SIZE=100000 REPS=9 WARMUP=2)
import { performance } from 'node:perf_hooks';
import { Reader } from '../src/sim/protocol/buffers.js';
import { decode, encode } from '../src/sim/protocol/codec.js';
import {
  AlterPartitionReassignmentsRequestSchema,
  AlterPartitionReassignmentsResponseSchema,
  DescribeLogDirsResponseSchema,
  ListPartitionReassignmentsResponseSchema,
  MetadataResponseSchema,
  type AlterPartitionReassignmentsRequest,
  type AlterPartitionReassignmentsResponse,
  type DescribeLogDirsResponse,
  type ListPartitionReassignmentsResponse,
  type MetadataResponse,
} from '../src/sim/protocol/messages.generated.js';
import type { MessageSchema } from '../src/sim/protocol/schema.js';
import * as ref from '../test/sim/protocol/codec-reference.js';

const SIZE = Number(process.env.SIZE ?? 100_000);
const REPS = Number(process.env.REPS ?? 9);
const WARMUP = Number(process.env.WARMUP ?? 2);
const PER_TOPIC = 1000;
const BROKERS = 12;

const topicName = (t: number) => `topic-${String(t).padStart(4, '0')}`;
const TOPICS = Math.ceil(SIZE / PER_TOPIC);
const partitionsOf = (t: number) => Math.min(PER_TOPIC, SIZE - t * PER_TOPIC);
const replicasOf = (t: number, p: number) => { const b = (t + p) % BROKERS; return [b, (b + 1) % BROKERS, (b + 2) % BROKERS]; };

function alterRequest(): AlterPartitionReassignmentsRequest {
  return {
    timeoutMs: 60_000,
    topics: Array.from({ length: TOPICS }, (_, t) => ({
      name: topicName(t),
      partitions: Array.from({ length: partitionsOf(t) }, (_, p) => ({ partitionIndex: p, replicas: replicasOf(t, p + 1) })),
    })),
  };
}

function alterResponse(): AlterPartitionReassignmentsResponse {
  return {
    throttleTimeMs: 0,
    errorCode: 0,
    errorMessage: null,
    responses: Array.from({ length: TOPICS }, (_, t) => ({
      name: topicName(t),
      partitions: Array.from({ length: partitionsOf(t) }, (_, p) => ({ partitionIndex: p, errorCode: 0, errorMessage: null })),
    })),
  };
}

function listResponse(): ListPartitionReassignmentsResponse {
  return {
    throttleTimeMs: 0,
    errorCode: 0,
    errorMessage: null,
    topics: Array.from({ length: TOPICS }, (_, t) => ({
      name: topicName(t),
      partitions: Array.from({ length: partitionsOf(t) }, (_, p) => {
        const [a, b, c] = replicasOf(t, p);
        const d = (c! + 1) % BROKERS;
        return { partitionIndex: p, replicas: [d, b!, c!, a!], addingReplicas: [d], removingReplicas: [a!] };
      }),
    })),
  };
}

function metadataResponse(): MetadataResponse {
  return {
    throttleTimeMs: 0,
    brokers: Array.from({ length: BROKERS }, (_, b) => ({ nodeId: b, host: `broker-${b}.kafka.svc`, port: 9092, rack: `rack-${b % 3}` })),
    clusterId: 'sim-cluster-0000000000',
    controllerId: 0,
    topics: Array.from({ length: TOPICS }, (_, t) => ({
      errorCode: 0,
      name: topicName(t),
      topicId: Buffer.from(String(t).padStart(16, '0')).toString('base64url'),
      isInternal: false,
      partitions: Array.from({ length: partitionsOf(t) }, (_, p) => {
        const replicas = replicasOf(t, p);
        return { errorCode: 0, partitionIndex: p, leaderId: replicas[0]!, leaderEpoch: 3, replicaNodes: replicas, isrNodes: replicas.slice(), offlineReplicas: [] };
      }),
      topicAuthorizedOperations: -2147483648,
    })),
    clusterAuthorizedOperations: -2147483648,
  };
}

function logDirsResponse(): DescribeLogDirsResponse {
  const dirs = ['/var/lib/kafka/data-0', '/var/lib/kafka/data-1'];
  const results: DescribeLogDirsResponse['results'] = dirs.map((logDir) => ({ errorCode: 0, logDir, topics: [], totalBytes: 10n ** 12n, usableBytes: 4n * 10n ** 11n }));
  const topicIn = dirs.map(() => new Map<string, DescribeLogDirsResponse['results'][number]['topics'][number]>());
  const add = (d: number, topic: string, partition: number, size: bigint, future: boolean) => {
    let t = topicIn[d]!.get(topic);
    if (!t) topicIn[d]!.set(topic, (t = { name: topic, partitions: [] }));
    t.partitions.push({ partitionIndex: partition, partitionSize: size, offsetLag: future ? 4096n : 0n, isFutureKey: future });
  };
  const held = Math.floor(SIZE / 4);
  for (let i = 0; i < held; i++) {
    const topic = topicName(Math.floor(i / PER_TOPIC));
    add(i % 2, topic, i % PER_TOPIC, BigInt(1_000_000 + ((i * 7919) % 50_000_000)), false);
    if (i % 100 === 0) add((i + 1) % 2, topic, i % PER_TOPIC, BigInt((i * 31) % 1_000_000), true);
  }
  results.forEach((r, d) => (r.topics = [...topicIn[d]!.values()]));
  return { throttleTimeMs: 0, errorCode: 0, results };
}

interface Case { name: string; schema: MessageSchema; version: number; value: unknown }
const cases: Case[] = [
  { name: `AlterPartitionReassignments request v0, ${SIZE} partitions`, schema: AlterPartitionReassignmentsRequestSchema, version: 0, value: alterRequest() },
  { name: `AlterPartitionReassignments response v0, ${SIZE} partitions`, schema: AlterPartitionReassignmentsResponseSchema, version: 0, value: alterResponse() },
  { name: `ListPartitionReassignments response v0, ${SIZE} partitions`, schema: ListPartitionReassignmentsResponseSchema, version: 0, value: listResponse() },
  { name: `Metadata response v12, ${TOPICS} topics x ${PER_TOPIC} partitions RF 3`, schema: MetadataResponseSchema, version: 12, value: metadataResponse() },
  { name: `DescribeLogDirs response v4, ${Math.floor(SIZE / 4)} partitions`, schema: DescribeLogDirsResponseSchema, version: 4, value: logDirsResponse() },
];

const gc = (globalThis as { gc?: () => void }).gc;

/** With --expose-gc (the npm script passes it) a full GC first: no run pays for the garbage of the one before. */
function time(fn: () => unknown): number {
  gc?.();
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

function stats(xs: number[]): { min: number; median: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0]!, median: s[Math.floor(s.length / 2)]!, max: s[s.length - 1]! };
}

const fmt = (x: number) => x.toFixed(2).padStart(8);
const row = (label: string, xs: number[]) => { const s = stats(xs); return `  ${label.padEnd(22)} ${fmt(s.min)} ${fmt(s.median)} ${fmt(s.max)}`; };

console.log(`sim codec (node ${process.version}${gc ? ', GC before each run' : ''}), SIZE=${SIZE} REPS=${REPS} WARMUP=${WARMUP}; ms min / median / max, ratio = median new / median reference`);
for (const c of cases) {
  const bytes = ref.encode(c.schema, c.version, c.value).toBuffer();
  const ours = encode(c.schema, c.version, c.value).toBuffer();
  if (!ours.equals(bytes)) throw new Error(`${c.name}: the codecs encode different bytes`);
  const times = { refEncode: [] as number[], newEncode: [] as number[], refDecode: [] as number[], newDecode: [] as number[] };
  for (let i = 0; i < WARMUP + REPS; i++) {
    const re = time(() => ref.encode(c.schema, c.version, c.value).toBuffer());
    const ne = time(() => encode(c.schema, c.version, c.value).toBuffer());
    const rd = time(() => ref.decode(c.schema, c.version, new ref.Reader(bytes)));
    const nd = time(() => decode(c.schema, c.version, new Reader(bytes)));
    if (i < WARMUP) continue;
    times.refEncode.push(re); times.newEncode.push(ne); times.refDecode.push(rd); times.newDecode.push(nd);
  }
  console.log(`${c.name} (${(bytes.length / 1e6).toFixed(2)} MB)`);
  console.log(row('encode reference', times.refEncode));
  console.log(row('encode new', times.newEncode) + `   ratio ${(stats(times.newEncode).median / stats(times.refEncode).median).toFixed(3)}`);
  console.log(row('decode reference', times.refDecode));
  console.log(row('decode new', times.newDecode) + `   ratio ${(stats(times.newDecode).median / stats(times.refDecode).median).toFixed(3)}`);
}
