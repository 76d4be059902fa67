// The step-wise (yielding) forms of the planning functions and their faster internals give the
// same answers as the reference computations, whatever the ids and the order of the input.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';

import {
  compareTopicPartitions,
  computeReassignmentThrottles,
  computeReassignmentThrottlesSlowly,
  computeReassignmentThrottlesSteps,
  estimateMove,
  estimateMoveSteps,
  formatReassignmentFile,
  formatReassignmentFileSteps,
  parseReassignmentRequest,
  parseReassignmentRequestSteps,
  drain,
  STEP_ITEMS,
  topicPartitionOrderSteps,
  validateReassignment,
  validateReassignmentSteps,
  ANY_LOG_DIR,
  type ClusterSnapshot,
  type PartitionAssignment,
  type Steps,
} from '../../../src/domain/reassignment/index.js';

/** Runs steps counting the yields. */
function runCountingYields<T>(steps: Steps<T>): { value: T; yields: number } {
  let yields = 0;
  for (;;) {
    const r = steps.next();
    if (r.done) return { value: r.value, yields };
    yields++;
  }
}

// Ids whose decimal forms sort differently from their values (2 < 10 but "10" < "2").
const arbId = fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constantFrom(100, 101, 1000, 2_147_483_647, 21, 3));
const arbIds = fc.array(arbId, { maxLength: 5 });
const arbTopic = fc.constantFrom('a', 'b', 'a-1', 'B', 'ä');

const arbRunning = fc.array(fc.record({ topic: arbTopic, partition: arbId, replicas: arbIds, adding: arbIds }), { maxLength: 20 });
const arbProposed = fc.array(
  fc.record({ topic: arbTopic, partition: arbId, currentReplicas: arbIds.filter((l) => l.length > 0), targetReplicas: arbIds }),
  { maxLength: 40 },
);

describe('computeReassignmentThrottles (steps, string order from numeric keys)', () => {
  it('equals the calculate* reference for any ids, repeats and overlaps', () => {
    fc.assert(
      fc.property(arbRunning, arbProposed, (running, proposed) => {
        const outcome = (f: () => unknown) => {
          try {
            return f();
          } catch (err) {
            return (err as Error).message; // a move from 0 replicas: both throw the same
          }
        };
        assert.deepEqual(
          outcome(() => computeReassignmentThrottles(running, proposed)),
          outcome(() => drain(computeReassignmentThrottlesSlowly(running, proposed))),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('ids Kafka would not have (negative) take the reference path', () => {
    const proposed = [{ topic: 't', partition: 3, currentReplicas: [-1, 2], targetReplicas: [10, 2] }];
    assert.deepEqual(computeReassignmentThrottles([], proposed), drain(computeReassignmentThrottlesSlowly([], proposed)));
    assert.equal(computeReassignmentThrottles([], proposed).topics[0].leader, '3:-1,3:2');
  });

  it('leader lists in Java String order: 10 before 2, "1:10" after "1:1"', () => {
    const t = computeReassignmentThrottles(
      [],
      [
        { topic: 't', partition: 2, currentReplicas: [10, 1], targetReplicas: [3] },
        { topic: 't', partition: 10, currentReplicas: [1], targetReplicas: [2] },
      ],
    );
    assert.equal(t.topics[0].leader, '10:1,2:1,2:10');
    assert.equal(t.topics[0].follower, '10:2,2:3');
  });

  it('yields on large inputs and answers the same', () => {
    const proposed = Array.from({ length: 5000 }, (_, i) => ({
      topic: `t${i % 7}`,
      partition: i,
      currentReplicas: [i % 5, (i + 1) % 5],
      targetReplicas: [(i + 2) % 5, (i + 1) % 5],
    }));
    const { value, yields } = runCountingYields(computeReassignmentThrottlesSteps([], proposed));
    assert.ok(yields > 2);
    assert.deepEqual(value, drain(computeReassignmentThrottlesSlowly([], proposed)));
  });
});

describe('formatReassignmentFile (per-topic numeric sort)', () => {
  it('equals a stable sort by compareTopicPartitions, duplicates in input order', () => {
    const arbAssignment = fc.record({ topic: arbTopic, partition: fc.oneof(arbId, fc.constant(-1)), replicas: arbIds });
    fc.assert(
      fc.property(fc.array(arbAssignment, { maxLength: 60 }), (assignments) => {
        const expected = [...assignments]
          .sort(compareTopicPartitions)
          .map((a) => ({ topic: a.topic, partition: a.partition, replicas: [...a.replicas], log_dirs: a.replicas.map(() => ANY_LOG_DIR) }));
        const file = formatReassignmentFile(assignments);
        assert.deepEqual(file, { version: 1, partitions: expected });
        // Same replica arrays in the same order: identity of duplicates' order.
        file.partitions.forEach((p, i) => assert.deepEqual(p.replicas, expected[i].replicas));
      }),
      { numRuns: 300 },
    );
  });
});

describe('parseReassignmentRequest (fast path for plain entries)', () => {
  it('the same result as entry-by-entry parsing, errors and paths included', () => {
    const arbEntry = fc.record(
      {
        topic: fc.oneof(fc.constant('t'), fc.constant(''), fc.integer()),
        partition: fc.oneof(fc.nat(10), fc.constant(-1), fc.constant(2 ** 31), fc.constant(1.5), fc.constant('1')),
        replicas: fc.oneof(fc.array(fc.oneof(fc.nat(5), fc.constant(-2), fc.constant('x')), { maxLength: 4 }), fc.constant(null)),
        log_dirs: fc.oneof(fc.array(fc.constantFrom('any', '/d0', 'rel', 7), { maxLength: 4 }), fc.constant(null)),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(arbEntry, fc.constant(null), fc.constant(3)), { maxLength: 8 }), (entries) => {
        const body = { partitions: entries };
        const whole = parseReassignmentRequest(body);
        // One entry at a time (the general path for each, as the errors are per entry).
        const one = entries.map((e) => parseReassignmentRequest({ partitions: [e] }));
        if (one.every((r) => r.ok)) {
          assert.ok(whole.ok);
          assert.deepEqual(
            whole.request.partitions,
            one.flatMap((r) => (r.ok ? r.request.partitions : [])),
          );
        } else {
          assert.ok(!whole.ok);
          const expected = one.flatMap((r, i) =>
            r.ok ? [] : r.errors.map((e) => ({ ...e, path: e.path.replace(/^\/partitions\/0/, `/partitions/${i}`) })),
          );
          assert.deepEqual(whole.errors, expected);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('logDirs only when a dir is not "any", replicas copied', () => {
    const replicas = [1, 2];
    const r = parseReassignmentRequest({
      partitions: [
        { topic: 't', partition: 0, replicas, log_dirs: ['any', 'any'] },
        { topic: 't', partition: 1, replicas: [1, 2], log_dirs: ['/d', 'any'] },
      ],
    });
    assert.ok(r.ok);
    assert.deepEqual(r.request.partitions, [
      { topic: 't', partition: 0, replicas: [1, 2] },
      { topic: 't', partition: 1, replicas: [1, 2], logDirs: ['/d', 'any'] },
    ]);
    assert.notEqual(r.request.partitions[0].replicas, replicas);
  });
});

describe('steps forms', () => {
  const cluster: ClusterSnapshot = {
    liveBrokers: [0, 1, 2, 3],
    topics: [
      {
        name: 't',
        partitions: Array.from({ length: 6000 }, (_, partition) => ({
          partition,
          replicas: [partition % 4, (partition + 1) % 4],
          leader: partition % 4,
        })),
      },
    ],
    ongoing: [],
  };
  const targets: PartitionAssignment[] = Array.from({ length: 6000 }, (_, partition) => ({
    topic: 't',
    partition,
    replicas: [(partition + 2) % 4, (partition + 1) % 4],
  }));

  it('validate, parse, estimate: yield on large inputs, same result as the one-go call', () => {
    const v = runCountingYields(validateReassignmentSteps(cluster, { partitions: targets }));
    assert.ok(v.yields > 2);
    assert.deepEqual(v.value, validateReassignment(cluster, { partitions: targets }));
    const p = runCountingYields(parseReassignmentRequestSteps({ partitions: targets }));
    assert.ok(p.yields > 1);
    assert.deepEqual(p.value, parseReassignmentRequest({ partitions: targets }));
    assert.ok(v.value.ok);
    const e = runCountingYields(estimateMoveSteps(v.value.plan.partitions, { t: { 0: 5, 1: 7 } }, { throttle: 1024 }));
    assert.ok(e.yields > 1);
    assert.deepEqual(e.value, estimateMove(v.value.plan.partitions, { t: { 0: 5, 1: 7 } }, { throttle: 1024 }));
    const f = runCountingYields(formatReassignmentFileSteps(v.value.plan.rollback));
    assert.ok(f.yields > 1);
    assert.deepEqual(f.value, formatReassignmentFile(v.value.plan.rollback));
  });

  it('unknown brokers and duplicates in long replica lists are still found (no fast path there)', () => {
    const long = Array.from({ length: 20 }, (_, i) => i % 4);
    const r = validateReassignment(cluster, { partitions: [{ topic: 't', partition: 0, replicas: [...long, 9] }] });
    assert.ok(!r.ok);
    assert.deepEqual(
      r.errors.map((e) => e.code),
      ['UNKNOWN_BROKER', 'DUPLICATE_BROKER'],
    );
  });
});

describe('pacedEtaSeconds without a rate (no schedule run)', () => {
  it('the same as the schedule-based answer: 0 with nothing queued or moving, else the observed-rate fallback', async () => {
    const { pacedEtaSeconds, planWaves, moveDestinations } = await import('../../../src/domain/reassignment/index.js');
    const reference = (parts: Parameters<typeof pacedEtaSeconds>[0], observed: number | null): number | null => {
      const schedule = planWaves(parts, { perBroker: 2, cluster: null }, 'size-asc', { throttle: null, maxWaves: 0 });
      if (schedule.estimatedSeconds !== null) return schedule.estimatedSeconds;
      if (observed === null || observed <= 0) return null;
      let remaining = 0;
      for (const p of parts) {
        const copies = moveDestinations(p).length;
        if (p.state === 'queued') remaining += p.sizeBytes * copies;
        else if (p.state === 'moving') remaining += Math.max(0, p.sizeBytes - (p.bytesDone ?? 0)) * copies;
      }
      return remaining / observed;
    };
    const arbPart = fc.record({
      topic: fc.constant('t'),
      partition: fc.nat(20),
      currentReplicas: fc.array(fc.nat(4), { minLength: 1, maxLength: 3 }),
      leader: fc.constant(null),
      targetReplicas: fc.array(fc.nat(4), { minLength: 1, maxLength: 3 }),
      sizeBytes: fc.nat(1000),
      state: fc.constantFrom('queued' as const, 'moving' as const, 'completed' as const, 'failed' as const, 'cancelled' as const),
      bytesDone: fc.nat(1000),
    });
    fc.assert(
      fc.property(fc.array(arbPart, { maxLength: 12 }), fc.option(fc.nat(100)), (parts, observed) => {
        assert.equal(
          pacedEtaSeconds(parts, { perBroker: 2, cluster: null }, 'size-asc', { throttle: null, observedBytesPerSecond: observed }),
          reference(parts, observed),
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe('pacing in steps', () => {
  it('planWavesSteps and nextToStartSteps: same answers as planWaves and nextToStart, with yields', async () => {
    const { planWaves, planWavesSteps, nextToStart, nextToStartSteps } = await import('../../../src/domain/reassignment/index.js');
    const parts = Array.from({ length: 3000 }, (_, i) => ({
      topic: `t${i % 3}`,
      partition: i,
      currentReplicas: [i % 6, (i + 1) % 6],
      leader: i % 6,
      targetReplicas: [(i + 2) % 6, (i + 1) % 6],
      sizeBytes: 1000 + (i % 13) * 100,
      state: i % 17 === 0 ? ('moving' as const) : ('queued' as const),
      bytesDone: 50,
    }));
    const bounds = { perBroker: 3, cluster: null };
    const waves = runCountingYields(planWavesSteps(parts, bounds, 'size-asc', { throttle: 1000, maxWaves: 10 }));
    assert.ok(waves.yields > 2);
    assert.deepEqual(waves.value, planWaves(parts, bounds, 'size-asc', { throttle: 1000, maxWaves: 10 }));
    const next = runCountingYields(nextToStartSteps(parts, bounds, 'size-desc'));
    assert.ok(next.yields > 1);
    assert.deepEqual(next.value, nextToStart(parts, bounds, 'size-desc'));
  });
});

describe('topicPartitionOrderSteps (the order pages of partitions are served in)', () => {
  // Topics whose code-unit order differs from locale order, partitions whose decimal order differs from numeric.
  const arbPartition = fc.record({
    topic: fc.constantFrom('a', 'b', 'B', 'a-1', 'ä', 'orders'),
    partition: fc.constantFrom(0, 1, 2, 9, 10, 11, 100, 999),
  });

  it('orders indexes as a stable sort by compareTopicPartitions would', () => {
    fc.assert(
      fc.property(fc.array(arbPartition, { maxLength: 300 }), (partitions) => {
        const expected = partitions.map((_, i) => i).sort((i, j) => compareTopicPartitions(partitions[i], partitions[j]) || i - j);
        assert.deepEqual([...runCountingYields(topicPartitionOrderSteps(partitions)).value], expected);
      }),
    );
  });

  it('yields while it works on many partitions, and not at all on few', () => {
    const many = Array.from({ length: 10 * STEP_ITEMS }, (_, i) => ({ topic: `t${i % 7}`, partition: Math.floor(i / 7) }));
    const { value, yields } = runCountingYields(topicPartitionOrderSteps(many));
    assert.ok(yields >= 10, `${yields} yields over ${many.length} partitions`);
    assert.equal(value.length, many.length);
    for (let k = 1; k < value.length; k++) assert.ok(compareTopicPartitions(many[value[k - 1]], many[value[k]]) < 0);
    assert.equal(runCountingYields(topicPartitionOrderSteps(many.slice(0, 10))).yields, 0);
  });
});
