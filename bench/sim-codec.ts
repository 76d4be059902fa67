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
// medians new / reference. No GC is forced between runs: a forced full GC made the run after it
// 3-5x slower (the sweeping and freeing of the last run's buffers landed in it), which measured
// the GC, not the codec; the collections the runs' own garbage causes are in the figures.
//
//   npm run bench:sim-codec               (SIZE=100000 REPS=9 WARMUP=2)
import assert from 'node:assert/strict';
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
const replicasOf = (t: number, p: number) => {
  const b = (t + p) % BROKERS;
  return [b, (b + 1) % BROKERS, (b + 2) % BROKERS];
};

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
        const d = (c + 1) % BROKERS;
        return { partitionIndex: p, replicas: [d, b, c, a], addingReplicas: [d], removingReplicas: [a] };
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
        return {
          errorCode: 0,
          partitionIndex: p,
          leaderId: replicas[0],
          leaderEpoch: 3,
          replicaNodes: replicas,
          isrNodes: replicas.slice(),
          offlineReplicas: [],
        };
      }),
      topicAuthorizedOperations: -2147483648,
    })),
    clusterAuthorizedOperations: -2147483648,
  };
}

function logDirsResponse(): DescribeLogDirsResponse {
  const dirs = ['/var/lib/kafka/data-0', '/var/lib/kafka/data-1'];
  const results: DescribeLogDirsResponse['results'] = dirs.map((logDir) => ({
    errorCode: 0,
    logDir,
    topics: [],
    totalBytes: 10n ** 12n,
    usableBytes: 4n * 10n ** 11n,
  }));
  const topicIn = dirs.map(() => new Map<string, DescribeLogDirsResponse['results'][number]['topics'][number]>());
  const add = (d: number, topic: string, partition: number, size: bigint, future: boolean) => {
    let t = topicIn[d].get(topic);
    if (!t) topicIn[d].set(topic, (t = { name: topic, partitions: [] }));
    t.partitions.push({ partitionIndex: partition, partitionSize: size, offsetLag: future ? 4096n : 0n, isFutureKey: future });
  };
  const held = Math.floor(SIZE / 4);
  for (let i = 0; i < held; i++) {
    const topic = topicName(Math.floor(i / PER_TOPIC));
    add(i % 2, topic, i % PER_TOPIC, BigInt(1_000_000 + ((i * 7919) % 50_000_000)), false);
    if (i % 100 === 0) add((i + 1) % 2, topic, i % PER_TOPIC, BigInt((i * 31) % 1_000_000), true);
  }
  results.forEach((r, d) => (r.topics = [...topicIn[d].values()]));
  return { throttleTimeMs: 0, errorCode: 0, results };
}

interface Case {
  name: string;
  schema: MessageSchema;
  version: number;
  value: unknown;
}
const cases: Case[] = [
  {
    name: `AlterPartitionReassignments request v0, ${SIZE} partitions`,
    schema: AlterPartitionReassignmentsRequestSchema,
    version: 0,
    value: alterRequest(),
  },
  {
    name: `AlterPartitionReassignments response v0, ${SIZE} partitions`,
    schema: AlterPartitionReassignmentsResponseSchema,
    version: 0,
    value: alterResponse(),
  },
  {
    name: `ListPartitionReassignments response v0, ${SIZE} partitions`,
    schema: ListPartitionReassignmentsResponseSchema,
    version: 0,
    value: listResponse(),
  },
  {
    name: `Metadata response v12, ${TOPICS} topics x ${PER_TOPIC} partitions RF 3`,
    schema: MetadataResponseSchema,
    version: 12,
    value: metadataResponse(),
  },
  {
    name: `DescribeLogDirs response v4, ${Math.floor(SIZE / 4)} partitions`,
    schema: DescribeLogDirsResponseSchema,
    version: 4,
    value: logDirsResponse(),
  },
];

interface Run {
  wall: number;
  cpu: number;
}

/** Wall and CPU ms of one synchronous call (CPU of the whole process: GC helper threads too). */
function time(fn: () => unknown): Run {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  fn();
  const wall = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1000 };
}

function stats(xs: number[]): { min: number; median: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
}

const fmt = (x: number) => x.toFixed(1).padStart(7);
const triple = (xs: number[]) => {
  const s = stats(xs);
  return `${fmt(s.min)} ${fmt(s.median)} ${fmt(s.max)}`;
};
const ratio = (a: number[], b: number[]) => (stats(a).median / stats(b).median).toFixed(3).padStart(7);

console.log(`sim codec (node ${process.version}), SIZE=${SIZE} REPS=${REPS} WARMUP=${WARMUP}`);
console.log('ms min / median / max over REPS, wall and CPU; ratio = median new / median reference (wall, CPU);');
console.log('1st = the first call in this process (not JIT-compiled yet; the new codec compiles the schema then)');
console.log(`${''.padEnd(20)} ${'wall ms'.padStart(23)} ${'cpu ms'.padStart(23)} ${'1st'.padStart(7)}   ratio wall, cpu`);
for (const c of cases) {
  const bytes = ref.encode(c.schema, c.version, c.value).toBuffer();
  const ours = encode(c.schema, c.version, c.value).toBuffer();
  if (!ours.equals(bytes)) throw new Error(`${c.name}: the codecs encode different bytes`);
  assert.deepStrictEqual(
    decode(c.schema, c.version, new Reader(bytes)),
    ref.decode(c.schema, c.version, new ref.Reader(bytes)),
    `${c.name}: the codecs decode differently`,
  );
  const ops = {
    'encode reference': () => ref.encode(c.schema, c.version, c.value).toBuffer(),
    'encode new': () => encode(c.schema, c.version, c.value).toBuffer(),
    'decode reference': () => ref.decode(c.schema, c.version, new ref.Reader(bytes)),
    'decode new': () => decode(c.schema, c.version, new Reader(bytes)),
  };
  const runs = new Map<string, Run[]>(Object.keys(ops).map((k) => [k, []]));
  // Interleaved, so that load on the machine and GC fall on both codecs alike.
  for (let i = 0; i < WARMUP + REPS; i++) for (const [k, f] of Object.entries(ops)) runs.get(k)!.push(time(f));
  console.log(`${c.name} (${(bytes.length / 1e6).toFixed(2)} MB)`);
  for (const k of Object.keys(ops)) {
    const all = runs.get(k)!;
    const timed = all.slice(WARMUP);
    const wall = timed.map((r) => r.wall);
    const cpu = timed.map((r) => r.cpu);
    let line = `  ${k.padEnd(18)} ${triple(wall)} ${triple(cpu)} ${fmt(all[0].wall)}`;
    if (k.endsWith('new')) {
      const base = runs.get(k.replace('new', 'reference'))!.slice(WARMUP);
      line += `   ${ratio(
        wall,
        base.map((r) => r.wall),
      )} ${ratio(
        cpu,
        base.map((r) => r.cpu),
      )}`;
    }
    console.log(line);
  }
}
