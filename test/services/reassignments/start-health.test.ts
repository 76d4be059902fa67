// healthAtStart's decisions over a stand-in for the health interlock's read (the read itself is
// the reconciler's, tested over the wire in health-at-start.integration.test.ts): what it asks
// the interlock, and what a paced, an unpaced and an `off` start get.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SAFETY, type HoldDecision } from '../../../src/domain/reassignment/health.js';
import type { PartitionMovePlan } from '../../../src/domain/reassignment/index.js';
import type { HealthInterlock, HealthSubject } from '../../../src/reconcile/health.js';
import { healthAtStart, warningMessage } from '../../../src/services/reassignments/start-health.js';
import { partitionId } from '../../../src/reconcile/ownership.js';
import type { StateView } from '../../../src/state/store.js';
import type { ReplicaHealth } from '../../../src/kafka/replica-health.js';

const plan = (topic: string, partition: number, current: number[], target: number[]): PartitionMovePlan =>
  ({
    topic,
    partition,
    currentReplicas: current,
    targetReplicas: target,
    adding: target.filter((b) => !current.includes(b)),
    removing: current.filter((b) => !target.includes(b)),
    leader: current[0] ?? null,
    noOp: current.join() === target.join(),
    alreadyMoving: false,
  }) as unknown as PartitionMovePlan;

const reasons = [
  { kind: 'brokerGone' as const, count: 1, examples: ['4'] },
  { kind: 'underReplicated' as const, count: 7, examples: ['a-0', 'a-1', 'a-2', 'a-3', 'a-4'] },
];

function stub(decision: HoldDecision) {
  const calls: { subject: HealthSubject; moving: ReadonlySet<string> }[] = [];
  const interlock = {
    async decideAtStart(subject: HealthSubject, moving: ReadonlySet<string>) {
      calls.push({ subject, moving });
      return { health: { troubles: [], goneBrokers: [], partitions: 0 }, decision };
    },
  } as unknown as HealthInterlock;
  return { interlock, calls };
}

const view = { reassignments: new Map() } as unknown as StateView;
const partitions = [plan('t', 0, [0, 1], [0, 2]), plan('t', 1, [1, 2], [1, 2])];
const held: HoldDecision = { kind: 'held', hold: { since: 1000, reasons, healthyPasses: 0 } };

describe('healthAtStart', () => {
  it("paced, trouble: the hold and a warning that says it is held; its moves (not its no-ops) and Kafka's are passed on", async () => {
    const { interlock, calls } = stub(held);
    const out = await healthAtStart(interlock, { safety: null, paced: true, partitions, moving: [{ topic: 'u', partition: 3 }], view });
    assert.deepEqual(out.hold, { since: 1000, reasons, healthyPasses: 0 });
    assert.equal(out.warning?.wouldHold, true);
    assert.deepEqual(out.warning?.reasons, reasons);
    assert.equal(calls.length, 1);
    assert.deepEqual(
      calls[0].subject.partitions.map((p) => [p.topic, p.partition, p.state, [...p.original], [...p.target]]),
      [['t', 0, 'queued', [0, 1], [0, 2]]],
    );
    assert.equal(calls[0].subject.safety, undefined, 'absent: the default policy');
    assert.deepEqual([...calls[0].moving], [partitionId('u', 3)]);
  });

  it('unpaced, trouble: a warning only (nothing to hold)', async () => {
    const { interlock } = stub(held);
    const out = await healthAtStart(interlock, { safety: DEFAULT_SAFETY, paced: false, partitions, moving: [], view });
    assert.equal(out.hold, undefined);
    assert.equal(out.warning?.wouldHold, false);
    assert.match(out.warning.message, /give concurrency/);
  });

  it('healthy: nothing; "off": the interlock is not asked', async () => {
    const healthy = stub({ kind: 'none' });
    assert.deepEqual(
      await healthAtStart(healthy.interlock, {
        safety: { holdOn: ['offline'], resumeAfterPasses: 2 },
        paced: true,
        partitions,
        moving: [],
        view,
      }),
      {},
    );
    assert.deepEqual(healthy.calls[0].subject.safety, { holdOn: ['offline'], resumeAfterPasses: 2 });
    const off = stub(held);
    assert.deepEqual(await healthAtStart(off.interlock, { safety: 'off', paced: true, partitions, moving: [], view }), {});
    assert.equal(off.calls.length, 0);
  });

  it('a quiet answer with every target live: nothing, and the interlock is not asked; anything to look at: it is', async () => {
    const quiet: ReplicaHealth = { brokers: [0, 1, 2], topics: [{ name: 't', partitions: [] }], partitions: 2, goneUnlisted: [] };
    const ask = (answer: ReplicaHealth, parts = partitions) => {
      const s = stub(held);
      const prefetched = Promise.resolve(answer);
      return healthAtStart(s.interlock, { safety: null, paced: true, partitions: parts, moving: [], view, prefetched }).then((out) => ({
        out,
        asked: s.calls.length,
      }));
    };
    assert.deepEqual(await ask(quiet), { out: {}, asked: 0 });
    // A target broker not live, a gone broker among the partitions left out, a partition listed: the interlock decides.
    assert.equal((await ask({ ...quiet, brokers: [0, 1] })).asked, 1);
    assert.equal((await ask({ ...quiet, goneUnlisted: [5] })).asked, 1);
    const listed: ReplicaHealth = {
      ...quiet,
      topics: [{ name: 't', partitions: [{ partition: 1, leader: -1, replicas: [1, 2], isr: [], offlineReplicas: [] }] }],
    };
    assert.equal((await ask(listed)).asked, 1);
    // A no-op's replicas are not targets: broker 2 gone, with only the no-op naming it, is still quiet for the moves.
    assert.deepEqual(await ask({ ...quiet, brokers: [0, 1, 2] }, [plan('t', 1, [1, 3], [1, 3]), plan('t', 0, [0, 1], [0, 2])]), {
      out: {},
      asked: 0,
    });
  });

  it('the message names each kind with its count and examples, "..." when there are more', () => {
    const m = warningMessage(reasons, true);
    assert.match(m, /1 broker\(s\) gone \(4\)/);
    assert.match(m, /7 under-replicated partition\(s\) outside any move \(a-0, a-1, a-2, a-3, a-4, \.\.\.\)/);
    assert.match(m, /starts held/);
  });
});
