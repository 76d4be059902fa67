// Decoding the three big Kafka answers of a 100,000-partition reassignment, as the gateway
// receives them (a Reader over the socket chunks, 64 KiB each): @platformatic/kafka's parser
// plus what the gateway then built from its objects (baseline), against our decoders
// (src/kafka/apis/describe-log-dirs.ts, list-partition-reassignments-v0.ts, metadata.ts).
//   - DescribeLogDirs v4 of a broker holding 25,000 of the partitions and of one holding all
//     SIZE, two log dirs, 1% of the replicas with a future replica in the other dir: decode,
//     then the sizes map (what progress, leader sizes and plans ask for) or sizes + placement
//     (log-dir moves; the baseline always built both). The key table of the partitions asked
//     about is built once per call for all brokers: it is timed on its own.
//   - ListPartitionReassignments v0 listing SIZE moving partitions (3 -> 3 replicas, one
//     changed: ~3 MB), decode + the list sorted by topic and partition.
//   - Metadata v12 of the moving topics (SIZE / 1000 topics of 1000 partitions, RF 3 on 12
//     brokers, every replica in sync), decode + describePartitions' answer (topics without an
//     error, sorted by name then partition, replica lists only): what every reconcile pass
//     reads; and the decode with every list (isr, offline replicas: describeTopic).
//   - the DescribeLogDirs request naming SIZE partitions: the client's writer, made into one
//     Buffer as the connection sends it, against ours.
// The answers are encoded with the simulator's codec (src/sim/protocol). Prints min/median/max
// ms over REPS and the ratio of the medians ours / baseline; the JS heap bytes one run allocates
// (the sampling heap profiler at a 1 KiB interval, objects already collected included; array
// buffers' backing stores are not on the heap and not counted); with --expose-gc also the heap +
// array buffers the result holds after a GC (the npm script passes it); and the longest step
// of our sliced decoders (how long the event loop can be held past a slice's 8 ms).
//
//   npm run bench:kafka-decode            (SIZE=100000 REPS=9)
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import { describeLogDirsV4, listPartitionReassignmentsV0, metadataV12, Reader, ResponseError, Writer } from '@platformatic/kafka';
import { encode } from '../src/sim/protocol/codec.js';
import {
  DescribeLogDirsResponseSchema,
  ListPartitionReassignmentsResponseSchema,
  MetadataResponseSchema,
  type DescribeLogDirsResponse,
  type ListPartitionReassignmentsResponse,
  type MetadataResponse,
} from '../src/sim/protocol/messages.generated.js';
import {
  decodeDescribeLogDirs,
  decodeDescribeLogDirsSteps,
  encodeDescribeLogDirsRequest,
  replicaSizesOf,
  replicaSizesSteps,
  topicsOf,
  topicsOfSteps,
} from '../src/kafka/apis/describe-log-dirs.js';
import {
  decodeListPartitionReassignments,
  decodeListPartitionReassignmentsSteps,
  sortByTopicPartition,
} from '../src/kafka/apis/list-partition-reassignments-v0.js';
import { decodeMetadata, decodeMetadataSteps, placementOf } from '../src/kafka/apis/metadata.js';
import type { Steps } from '../src/domain/steps.js';
import { WireReader } from '../src/kafka/wire/reader.js';
import { placementFromClientAnswer, sizesFromClientAnswer } from '../test/kafka/client-reference.js';

const SIZE = Number(process.env.SIZE ?? 100_000);
const REPS = Number(process.env.REPS ?? 9);
const PER_TOPIC = 1000;
const CHUNK = 64 * 1024;

const partitions = Array.from({ length: SIZE }, (_, i) => ({
  topic: `topic-${String(Math.floor(i / PER_TOPIC)).padStart(4, '0')}`,
  partition: i % PER_TOPIC,
}));

function logDirsAnswer(held: typeof partitions): Buffer {
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
    t.partitions.push({ partitionIndex: partition, partitionSize: size, offsetLag: 0n, isFutureKey: future });
  };
  held.forEach((p, i) => {
    add(i % 2, p.topic, p.partition, BigInt(1_000_000 + ((i * 7919) % 50_000_000)), false);
    if (i % 100 === 0) add((i + 1) % 2, p.topic, p.partition, BigInt((i * 31) % 1_000_000), true);
  });
  results.forEach((r, d) => (r.topics = [...topicIn[d].values()]));
  return encode(DescribeLogDirsResponseSchema, 4, { throttleTimeMs: 0, errorCode: 0, results }).toBuffer();
}

function listedAnswer(): Buffer {
  const topics = new Map<string, ListPartitionReassignmentsResponse['topics'][number]>();
  for (const p of partitions) {
    let t = topics.get(p.topic);
    if (!t) topics.set(p.topic, (t = { name: p.topic, partitions: [] }));
    const b = p.partition % 12;
    t.partitions.push({
      partitionIndex: p.partition,
      replicas: [(b + 3) % 12, (b + 1) % 12, (b + 2) % 12, b],
      addingReplicas: [(b + 3) % 12],
      removingReplicas: [b],
    });
  }
  return encode(ListPartitionReassignmentsResponseSchema, 0, {
    throttleTimeMs: 0,
    errorCode: 0,
    errorMessage: null,
    topics: [...topics.values()],
  }).toBuffer();
}

function metadataAnswer(): Buffer {
  const topics = new Map<string, MetadataResponse['topics'][number]>();
  for (const p of partitions) {
    let t = topics.get(p.topic);
    if (!t) {
      const topicId = Buffer.alloc(16, topics.size + 1).toString('base64url');
      topics.set(
        p.topic,
        (t = { errorCode: 0, name: p.topic, topicId, isInternal: false, partitions: [], topicAuthorizedOperations: -2147483648 }),
      );
    }
    const b = (p.partition + topics.size) % 12;
    const replicas = [b, (b + 1) % 12, (b + 2) % 12];
    t.partitions.push({
      errorCode: 0,
      partitionIndex: p.partition,
      leaderId: b,
      leaderEpoch: 4,
      replicaNodes: replicas,
      isrNodes: replicas,
      offlineReplicas: [],
    });
  }
  const brokers = Array.from({ length: 12 }, (_, id) => ({
    nodeId: id,
    host: `broker-${id}.kafka.internal`,
    port: 9092,
    rack: `rack-${id % 3}`,
  }));
  return encode(MetadataResponseSchema, 12, {
    throttleTimeMs: 0,
    brokers,
    clusterId: 'bench-cluster',
    controllerId: 0,
    topics: [...topics.values()],
  }).toBuffer();
}

/** A Reader over `bytes` in socket-sized chunks, as the connection hands it to a parser. */
function chunkedReader(bytes: Buffer): Reader {
  const w = Writer.create();
  for (let at = 0; at < bytes.length; at += CHUNK) w.append(bytes.subarray(at, at + CHUNK));
  return Reader.from(w);
}

function clientParse<T>(parse: (c: number, k: number, v: number, r: Reader) => T, bytes: Buffer): T {
  try {
    return parse(0, 0, 0, chunkedReader(bytes));
  } catch (err) {
    if (err instanceof ResponseError) return err.response as T;
    throw err;
  }
}

// ---------------------------------------------------------------- baseline: what the gateway did before

function baselineSizes(bytes: Buffer) {
  return sizesFromClientAnswer(clientParse(describeLogDirsV4.parseResponse, bytes));
}

function baselineListed(bytes: Buffer) {
  const res = clientParse(listPartitionReassignmentsV0.parseResponse, bytes);
  return res.topics
    .flatMap((t) =>
      t.partitions.map((p) => ({
        topic: t.name,
        partition: p.partitionIndex,
        replicas: [...p.replicas],
        adding: [...p.addingReplicas],
        removing: [...p.removingReplicas],
      })),
    )
    .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
}

function baselinePlacement(bytes: Buffer) {
  return placementFromClientAnswer(clientParse(metadataV12.parseResponse, bytes));
}

// ---------------------------------------------------------------- ours

// describeReplicaSizes builds the key table once per call, shared by every broker's answer: timed on its own below.
const table = topicsOf(partitions).keys;
const ourSizes = (bytes: Buffer, placement: boolean) =>
  replicaSizesOf(decodeDescribeLogDirs(WireReader.fromClientReader(chunkedReader(bytes))), table, placement);
// describePartitions reads the replica lists only (no caller of it reads isr or offline replicas); describeTopic reads all three.
const ourPlacement = (bytes: Buffer) => placementOf(decodeMetadata(WireReader.fromClientReader(chunkedReader(bytes)), 'replicas'));
const ourFull = (bytes: Buffer) => decodeMetadata(WireReader.fromClientReader(chunkedReader(bytes)));
const ourListed = (bytes: Buffer) =>
  sortByTopicPartition(decodeListPartitionReassignments(WireReader.fromClientReader(chunkedReader(bytes))).moving);

// ---------------------------------------------------------------- timing

const gc = (globalThis as { gc?: () => void }).gc;

function measure(fn: () => unknown): { ms: number[]; retained: number | null } {
  for (let i = 0; i < 2; i++) fn(); // warm up
  const ms: number[] = [];
  for (let i = 0; i < REPS; i++) {
    gc?.();
    const t0 = performance.now();
    fn();
    ms.push(performance.now() - t0);
  }
  let retained: number | null = null;
  if (gc) {
    gc();
    const mem = () => {
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const before = mem();
    const kept = fn();
    gc();
    retained = mem() - before;
    void kept;
  }
  return { ms: ms.sort((a, b) => a - b), retained };
}

// Every allocation on the JS heap, sampled every 1 KiB on average (collected objects included).
const inspector = new Session();
inspector.connect();
await inspector.post('HeapProfiler.enable');
async function allocated(fn: () => unknown): Promise<number> {
  await inspector.post('HeapProfiler.startSampling', {
    samplingInterval: 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  fn();
  const { profile } = await inspector.post('HeapProfiler.stopSampling');
  type Node = { selfSize: number; children: Node[] };
  const sum = (n: Node): number => n.children.reduce((s, c) => s + sum(c), n.selfSize);
  return sum(profile.head);
}

const median = (xs: number[]) => xs[Math.floor(xs.length / 2)];
const fmt = (xs: number[]) => `${xs[0].toFixed(1)} / ${median(xs).toFixed(1)} / ${xs.at(-1)!.toFixed(1)}`;
const mib = (b: number | null) => (b === null ? '' : `  holds ${(b / 2 ** 20).toFixed(1)} MiB`);

const allocs = (b: number) => `  allocates ${(b / 2 ** 20).toFixed(1)} MiB`;

async function compare(name: string, bytes: Buffer, baseline: () => unknown, ours: Record<string, () => unknown>): Promise<void> {
  const base = measure(baseline);
  const baseAlloc = await allocated(baseline);
  console.log(`${name} (${(bytes.length / 2 ** 20).toFixed(2)} MiB)`);
  console.log(`  baseline  ${fmt(base.ms)} ms${allocs(baseAlloc)}${mib(base.retained)}`);
  for (const [label, fn] of Object.entries(ours)) {
    const m = measure(fn);
    const alloc = await allocated(fn);
    console.log(
      `  ${label.padEnd(9)} ${fmt(m.ms)} ms${allocs(alloc)}${mib(m.retained)}  ours/baseline time ${(median(m.ms) / median(base.ms)).toFixed(3)}, allocated ${(alloc / baseAlloc).toFixed(3)}`,
    );
  }
}

const quarter = partitions.filter((_, i) => i % 4 === 0);
const dirs25k = logDirsAnswer(quarter);
const dirsAll = logDirsAnswer(partitions);
const listed = listedAnswer();
const metadata = metadataAnswer();

console.log(`SIZE=${SIZE} REPS=${REPS} (min / median / max)${gc ? '' : '  (run with --expose-gc for memory)'}`);
const keyTable = measure(() => topicsOf(partitions));
console.log(
  `key table of the ${SIZE} partitions asked about (once per describeReplicaSizes call)  ${fmt(keyTable.ms)} ms${mib(keyTable.retained)}`,
);
await compare(`DescribeLogDirs, a broker holding ${quarter.length}`, dirs25k, () => baselineSizes(dirs25k), {
  sizes: () => ourSizes(dirs25k, false),
  placement: () => ourSizes(dirs25k, true),
});
await compare(`DescribeLogDirs, a broker holding ${SIZE}`, dirsAll, () => baselineSizes(dirsAll), {
  sizes: () => ourSizes(dirsAll, false),
  placement: () => ourSizes(dirsAll, true),
});
await compare(`ListPartitionReassignments, ${SIZE} moving`, listed, () => baselineListed(listed), { ours: () => ourListed(listed) });
await compare(`Metadata, ${SIZE / PER_TOPIC} topics x ${PER_TOPIC} partitions, RF 3`, metadata, () => baselinePlacement(metadata), {
  ours: () => ourPlacement(metadata),
  'all lists': () => ourFull(metadata),
});
// In the gateway these run in slices (src/kafka/wire/slices.ts): the loop turns whenever a slice
// passes 8 ms, so what holds it at most is one step (2,048 entries) past that.
function longestStep<T>(steps: Steps<T>): { value: T; ms: number } {
  let ms = 0;
  for (;;) {
    const t0 = performance.now();
    const r = steps.next();
    ms = Math.max(ms, performance.now() - t0);
    if (r.done) return { value: r.value, ms };
  }
}
const longest: Record<string, number[]> = {};
for (let rep = 0; rep < REPS; rep++) {
  gc?.();
  const add = (name: string, ms: number) => (longest[name] ??= []).push(ms);
  const keyTable = longestStep(topicsOfSteps(partitions));
  add('key table', keyTable.ms);
  const decoded = longestStep(decodeDescribeLogDirsSteps(WireReader.fromClientReader(chunkedReader(dirsAll))));
  add(`DescribeLogDirs decode (${SIZE})`, decoded.ms);
  add(`sizes (${SIZE})`, longestStep(replicaSizesSteps(decoded.value, keyTable.value.keys, false)).ms);
  add(`sizes + placement (${SIZE})`, longestStep(replicaSizesSteps(decoded.value, keyTable.value.keys, true)).ms);
  add(
    `ListPartitionReassignments decode (${SIZE})`,
    longestStep(decodeListPartitionReassignmentsSteps(WireReader.fromClientReader(chunkedReader(listed)))).ms,
  );
  add(
    `Metadata decode, replica lists (${SIZE})`,
    longestStep(decodeMetadataSteps(WireReader.fromClientReader(chunkedReader(metadata)), 'replicas')).ms,
  );
}
console.log('longest step of ours (ms, min / median / max): what one slice overshoots 8 ms by at most');
for (const [name, ms] of Object.entries(longest)) console.log(`  ${name.padEnd(42)} ${fmt(ms.sort((a, b) => a - b))}`);

const requestTopics = topicsOf(partitions).topics;
const requestBody = encodeDescribeLogDirsRequest(requestTopics);
await compare(
  `DescribeLogDirs request for ${SIZE} partitions (encoded per broker before, once per call now)`,
  requestBody,
  () => describeLogDirsV4.createRequest(requestTopics).buffer,
  {
    ours: () => encodeDescribeLogDirsRequest(requestTopics),
  },
);
