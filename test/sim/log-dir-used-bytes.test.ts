// A log dir's used bytes (DescribeLogDirs v4 usable_bytes = total - used) are kept as sums that
// follow every change (src/sim/cluster/partition-moves.ts, usedBytesByDir) instead of a walk of
// every replica on the broker. These tests drive random histories - topics created, grown and
// deleted, records produced, bytes seeded, reassignments started, changed, cancelled and
// completed under random throttles, brokers stopped and started, a hand-driven clock advanced
// by odd amounts - and compare the sums, after every step and on every broker, with the walk
// (usedBytesByDirWalk) and with the sizes DescribeLogDirs lists replica by replica: equal to
// the byte. Then the same through the DescribeLogDirs handler with intra-broker log-dir moves.
// The per-class sums of copying replicas are tested on their own in cluster/copied-sum.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { KafkaError } from '../../src/sim/cluster/errors.js';
import { LogDirs, LOG_DIR_THROTTLE } from '../../src/sim/log-dirs.js';
import { ManualClock } from '../../src/sim/clock.js';
import { Simulator } from '../../src/sim/simulator.js';
import { describeLogDirsHandler } from '../../src/sim/handlers/35_describe_log_dirs.js';
import type { RequestContext } from '../../src/sim/handlers/types.js';
import type { ClusterModel } from '../../src/sim/cluster/model.js';
import type { DescribeLogDirsResponse } from '../../src/sim/protocol/messages.generated.js';
import { buildBatch, makeModel } from './cluster/helpers.js';

const MiB = 1024 * 1024;
const BROKERS = 4;
const TOPICS = ['a', 'b', 'c', 'd'];

type Op =
  | { kind: 'create'; topic: number; partitions: number; rf: number }
  | { kind: 'grow'; topic: number; more: number }
  | { kind: 'delete'; topic: number }
  | { kind: 'produce'; topic: number; partition: number; records: number; size: number }
  | { kind: 'seed'; topic: number; partition: number; bytes: number }
  | { kind: 'alter'; entries: { topic: number; partition: number; target: number[] | null }[] }
  | { kind: 'moveAll'; topic: number; shift: number }
  | { kind: 'topicThrottle'; topic: number; side: 'leader' | 'follower'; value: string | null }
  | { kind: 'brokerRate'; broker: number; side: 'leader' | 'follower'; rate: number | null }
  | { kind: 'advance'; ms: number }
  | { kind: 'broker'; broker: number; up: boolean };

const target = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 4, arbitrary: fc.shuffledSubarray([0, 1, 2, 3], { minLength: 1, maxLength: BROKERS }) },
);
const throttleList = fc.oneof(
  fc.constant(null),
  fc.constant('*'),
  fc
    .uniqueArray(
      fc.tuple(fc.nat(5), fc.nat(BROKERS - 1)).map(([p, b]) => `${p}:${b}`),
      { minLength: 1, maxLength: 6 },
    )
    .map((l) => l.join(',')),
);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      topic: fc.nat(TOPICS.length - 1),
      partitions: fc.integer({ min: 1, max: 6 }),
      rf: fc.integer({ min: 1, max: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('grow' as const), topic: fc.nat(TOPICS.length - 1), more: fc.integer({ min: 1, max: 3 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), topic: fc.nat(TOPICS.length - 1) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('produce' as const),
      topic: fc.nat(TOPICS.length - 1),
      partition: fc.nat(8),
      records: fc.integer({ min: 1, max: 4 }),
      size: fc.integer({ min: 0, max: 300 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('seed' as const),
      topic: fc.nat(TOPICS.length - 1),
      partition: fc.nat(8),
      bytes: fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 512 * MiB }), fc.integer({ min: 0, max: 2 ** 40 })),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('alter' as const),
      entries: fc.array(fc.record({ topic: fc.nat(TOPICS.length - 1), partition: fc.nat(8), target }), { minLength: 1, maxLength: 8 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('moveAll' as const),
      topic: fc.nat(TOPICS.length - 1),
      shift: fc.integer({ min: 1, max: BROKERS - 1 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('topicThrottle' as const),
      topic: fc.nat(TOPICS.length - 1),
      side: fc.constantFrom('leader' as const, 'follower' as const),
      value: throttleList,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('brokerRate' as const),
      broker: fc.nat(BROKERS - 1),
      side: fc.constantFrom('leader' as const, 'follower' as const),
      // Whole-MiB rates (whole bytes per ms: every accumulator an integer) and odd ones.
      rate: fc.oneof(
        fc.constant(null),
        fc.integer({ min: 1, max: 8 }).map((n) => n * MiB),
        fc.integer({ min: 1, max: 50 * MiB }),
        fc.constant(1_000_000),
      ),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.oneof(
        { weight: 1, arbitrary: fc.constant(0) },
        { weight: 3, arbitrary: fc.integer({ min: 1, max: 50 }) },
        { weight: 3, arbitrary: fc.integer({ min: 50, max: 10_000 }) },
        { weight: 1, arbitrary: fc.integer({ min: 0, max: 3_600_000 }) },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('broker' as const), broker: fc.nat(BROKERS - 1), up: fc.boolean() }) },
);

/** Applies one step; Kafka's refusals (unknown topic, bad target, ...) change nothing and are fine. */
function step(m: ClusterModel, clock: ManualClock, op: Op): void {
  const name = (i: number): string => TOPICS[i];
  const partitionOf = (topic: number, p: number): number => {
    const view = m.topicView({ name: name(topic) });
    return view ? p % view.partitions.length : p;
  };
  try {
    switch (op.kind) {
      case 'create':
        m.createTopic({ name: name(op.topic), numPartitions: op.partitions, replicationFactor: op.rf });
        break;
      case 'grow': {
        const view = m.topicView({ name: name(op.topic) });
        if (view) m.createPartitions(name(op.topic), view.partitions.length + op.more);
        break;
      }
      case 'delete':
        m.deleteTopic(name(op.topic));
        break;
      case 'produce':
        m.append(
          name(op.topic),
          partitionOf(op.topic, op.partition),
          buildBatch(Array.from({ length: op.records }, (_, i) => 'x'.repeat(op.size + i))),
          { acks: 1 },
        );
        break;
      case 'seed':
        m.seedBytes(name(op.topic), partitionOf(op.topic, op.partition), op.bytes);
        break;
      case 'alter':
        m.alterPartitionReassignments(
          op.entries.map((e) => ({ topic: name(e.topic), partition: partitionOf(e.topic, e.partition), replicas: e.target })),
        );
        break;
      case 'moveAll': {
        // Every partition of the topic to the next brokers: many copies share each rate class.
        const view = m.topicView({ name: name(op.topic) });
        if (view)
          m.alterPartitionReassignments(
            view.partitions.map((p) => ({
              topic: name(op.topic),
              partition: p.partition,
              replicas: p.replicas.map((r) => (r + op.shift) % BROKERS),
            })),
          );
        break;
      }
      case 'topicThrottle':
        m.incrementalAlterConfigs({ type: 2, name: name(op.topic) }, [
          { name: `${op.side}.replication.throttled.replicas`, op: op.value === null ? 1 : 0, value: op.value },
        ]);
        break;
      case 'brokerRate':
        m.incrementalAlterConfigs({ type: 4, name: String(op.broker) }, [
          { name: `${op.side}.replication.throttled.rate`, op: op.rate === null ? 1 : 0, value: op.rate === null ? null : String(op.rate) },
        ]);
        break;
      case 'advance':
        clock.advance(op.ms);
        break;
      case 'broker':
        if (op.up) m.startBroker(op.broker);
        else m.stopBroker(op.broker);
        break;
    }
  } catch (err) {
    if (!(err instanceof KafkaError)) throw err;
  }
}

function defaultDirs(dirCount: number): (topic: string) => (partition: number) => number {
  return (topic) => {
    const h = LogDirs.topicHash(topic);
    return (partition) => LogDirs.defaultDirIndex(h, partition, dirCount);
  };
}

/** Used bytes per dir from DescribeLogDirs's own listing: every replica's reported size, summed. */
function listedBytes(m: ClusterModel, broker: number, dirCount: number): number[] {
  const used = new Array<number>(dirCount).fill(0);
  const dirs = defaultDirs(dirCount);
  for (const t of m.logDirSizes(broker, null)) for (const p of t.partitions) used[dirs(t.topic)(p.partition)] += p.sizeBytes;
  return used;
}

test('the kept used-bytes sums equal the walk of every replica, to the byte, through random histories', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 3 }),
      fc.oneof(
        fc.integer({ min: 1, max: 64 }).map((n) => n * MiB),
        fc.integer({ min: 1000, max: 100 * MiB }),
      ),
      fc.integer({ min: 0, max: 20 }),
      fc.constantFrom(1, 1024, MiB, 1024 * MiB),
      fc.array(fc.record({ partitions: fc.integer({ min: 1, max: 24 }), rf: fc.integer({ min: 1, max: 3 }) }), {
        minLength: TOPICS.length,
        maxLength: TOPICS.length,
      }),
      fc.array(opArb, { minLength: 1, maxLength: 70 }),
      (dirCount, bandwidth, roundTripMs, seedScale, topics, ops) => {
        const clock = new ManualClock(1_700_000_000_000);
        const seedBytes = (t: string, p: number): number => ((t.charCodeAt(0) * 7919 + p * 104729) % 997) * seedScale;
        const m = makeModel(BROKERS, {
          clock,
          logDirCount: dirCount,
          replicationBytesPerSecond: bandwidth,
          isrJoinRoundTripMs: roundTripMs,
          seedBytes,
        });
        topics.forEach(({ partitions, rf }, i) => step(m, clock, { kind: 'create', topic: i, partitions, rf }));
        for (const op of ops) {
          step(m, clock, op);
          for (let b = 0; b < BROKERS; b++) {
            const kept = m.logDirUsedBytesByDir(b);
            const walked = m.logDirUsedBytesByDirWalk(b, defaultDirs(dirCount), dirCount);
            assert.deepEqual(kept, walked, `broker ${b} after ${JSON.stringify(op)}`);
            assert.deepEqual(kept, listedBytes(m, b, dirCount), `broker ${b} (listing) after ${JSON.stringify(op)}`);
          }
        }
      },
    ),
    { numRuns: 150 },
  );
});

test('DescribeLogDirs usable_bytes: a request naming some partitions answers what naming none does, log-dir moves included', () => {
  const DIRS = ['/data/a', '/data/b', '/data/c'];
  fc.assert(
    fc.property(
      fc.array(
        fc.oneof(
          { weight: 6, arbitrary: opArb },
          {
            weight: 2,
            arbitrary: fc.record({
              kind: fc.constant('logDir' as const),
              broker: fc.nat(BROKERS - 1),
              topic: fc.nat(TOPICS.length - 1),
              partition: fc.nat(8),
              dir: fc.nat(DIRS.length - 1),
            }),
          },
          {
            weight: 1,
            arbitrary: fc.record({
              kind: fc.constant('logDirRate' as const),
              broker: fc.nat(BROKERS - 1),
              rate: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 10 * MiB })),
            }),
          },
        ),
        { minLength: 1, maxLength: 40 },
      ),
      (ops) => {
        const clock = new ManualClock(1_700_000_000_000);
        const sim = new Simulator({ brokers: BROKERS, clock, logDirs: DIRS, seedBytes: (t, p) => (t.length * 131 + p * 7) * 1024 });
        const ctx = (brokerId: number) => ({ brokerId, runtime: sim }) as unknown as RequestContext;
        for (const op of ops) {
          if (op.kind === 'logDir') {
            const name = TOPICS[op.topic];
            const view = sim.model.topicView({ name });
            if (view) sim.logDirs.alter(op.broker, name, op.partition % view.partitions.length, DIRS[op.dir], true);
          } else if (op.kind === 'logDirRate') {
            sim.model.incrementalAlterConfigs({ type: 4, name: String(op.broker) }, [
              { name: LOG_DIR_THROTTLE, op: op.rate === null ? 1 : 0, value: op.rate === null ? null : String(op.rate) },
            ]);
          } else {
            step(sim.model, clock, op);
          }
          const some = sim.model
            .topicViews()
            .map((t) => ({ topic: t.name, partitions: t.partitions.filter((p) => p.partition % 2 === 0).map((p) => p.partition) }));
          for (let b = 0; b < BROKERS; b++) {
            if (!sim.model.isBrokerUp(b)) continue;
            const usable = (topics: typeof some | null) =>
              (describeLogDirsHandler.handle(ctx(b), { topics }) as DescribeLogDirsResponse).results.map(
                (r) => `${r.logDir} ${r.usableBytes}`,
              );
            assert.deepEqual(usable(some), usable(null), `broker ${b} after ${JSON.stringify(op)}`);
          }
        }
      },
    ),
    { numRuns: 60 },
  );
});
