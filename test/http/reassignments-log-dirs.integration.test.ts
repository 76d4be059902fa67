// POST /reassignments with `log_dirs` other than "any" (intra-broker moves, AlterReplicaLogDirs),
// over the wire against a simulated 3-broker cluster with two log dirs per broker, the real Kafka
// layer and the reconciler; a ManualClock drives the simulator's copies and the gateway's clock.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/sim/index.js';
import { expectProblem, snapshotCluster } from './helpers.js';
import { createTopics, startReassignGateway, throttleConfigs, type ReassignGateway } from './reassignment-helpers.js';
import { eventually } from '../eventually.js';

const DIRS = ['/var/lib/kafka/data-0', '/var/lib/kafka/data-1'];
const LOG_DIR_RATE = 'replica.alter.log.dirs.io.max.bytes.per.second';
let clock: ManualClock;
let gw: ReassignGateway;

before(async () => {
  clock = new ManualClock();
  gw = await startReassignGateway({
    clock,
    simulator: { brokers: 3, logDirs: DIRS, seedBytes: 10_000, replicationBytesPerSecond: 100_000 },
  });
});
after(() => gw?.close());

const post = (body: unknown) =>
  gw
    .http()
    .post('/reassignments?detail=true')
    .send(body as object);
const otherDir = (dir: string) => DIRS.find((d) => d !== dir)!;

async function clusterState() {
  return {
    topics: await snapshotCluster(gw.app),
    throttles: await throttleConfigs(gw.kafka),
    moving: await gw.kafka.listPartitionReassignments(),
  };
}

/** Advance the shared clock in steps until the reassignment is in `state` (the reconciler notices). */
async function advanceUntil(id: string, state: string, stepMs = 1000): Promise<Record<string, any>> {
  return eventually(
    async () => {
      const res = await gw.http().get(`/reassignments/${id}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      if (res.body.state === state) return res.body;
      clock.advance(stepMs);
      return undefined;
    },
    30_000,
    60,
  );
}

describe('POST /reassignments with log_dirs', () => {
  before(async () => {
    await createTopics(
      gw,
      { name: 'ld', assignments: [[0, 1]] },
      {
        name: 'ld2',
        assignments: [
          [0, 1],
          [0, 1],
        ],
      },
      { name: 'ldbad', assignments: [[0, 1]] },
    );
  });

  it('an intra-broker move with a throttle: the dir rate is set on that broker, the move completes in the dir, the throttle goes', async () => {
    const target = otherDir(gw.sim.logDirs.dirOf(1, 'ld', 0));
    const body = { version: 1, partitions: [{ topic: 'ld', partition: 0, replicas: [0, 1], log_dirs: ['any', target] }], throttle: 2048 };

    const plan = await post({ ...body, validateOnly: true });
    assert.equal(plan.status, 200, JSON.stringify(plan.body));
    assert.deepEqual(plan.body.logDirMoves, [{ topic: 'ld', partition: 0, broker: 1, logDir: target, currentLogDir: otherDir(target) }]);
    assert.deepEqual(plan.body.throttleConfigs, [
      { resourceType: 'broker', resourceName: '1', configs: [{ name: LOG_DIR_RATE, value: '2048' }] },
    ]);

    const res = await post(body);
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const id = res.body.id;
    assert.deepEqual((await throttleConfigs(gw.kafka))['broker:1'], { [LOG_DIR_RATE]: '2048' });
    // Copying at 2048 B/s into a future replica: not done yet, whatever the reconciler saw.
    assert.ok(gw.sim.logDirs.future(1, 'ld', 0), 'a future replica copies into the target dir');
    const running = await gw.http().get(`/reassignments/${id}`);
    assert.equal(running.body.state, 'running', JSON.stringify(running.body));

    const done = await advanceUntil(id, 'completed');
    assert.equal(done.counts.completed, 1);
    assert.equal(gw.sim.logDirs.dirOf(1, 'ld', 0), target);
    assert.equal(gw.sim.logDirs.future(1, 'ld', 0), undefined);
    await eventually(async () => {
      assert.deepEqual(await throttleConfigs(gw.kafka), {});
      return true;
    });
  });

  it('a move to a new broker with a dir lands in that dir', async () => {
    const res = await post({
      version: 1,
      partitions: [
        { topic: 'ld2', partition: 0, replicas: [0, 2], log_dirs: ['any', DIRS[0]] },
        { topic: 'ld2', partition: 1, replicas: [0, 2], log_dirs: ['any', DIRS[1]] },
      ],
    });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    await advanceUntil(res.body.id, 'completed');
    assert.equal(gw.sim.logDirs.dirOf(2, 'ld2', 0), DIRS[0]);
    assert.equal(gw.sim.logDirs.dirOf(2, 'ld2', 1), DIRS[1]);
  });

  it('a dir the broker does not have, or an offline one: 422 per partition, nothing changed', async () => {
    const before = await clusterState();
    const res = await post({
      version: 1,
      partitions: [{ topic: 'ldbad', partition: 0, replicas: [0, 2], log_dirs: ['/nope', 'any'] }],
      throttle: 4096,
    });
    expectProblem(res, 422, 'invalid-reassignment');
    assert.deepEqual(
      res.body.errors.map((e: any) => [e.path, e.code, e.kafkaError?.code]),
      [['/body/partitions/0', 'LOG_DIR_NOT_FOUND', 57]],
    );
    assert.match(res.body.errors[0].message, /\/nope is not one of broker 0's log.dirs/);

    gw.sim.logDirs.setOffline(2, DIRS[1], true);
    try {
      const off = await post({ version: 1, partitions: [{ topic: 'ldbad', partition: 0, replicas: [0, 2], log_dirs: ['any', DIRS[1]] }] });
      expectProblem(off, 422, 'invalid-reassignment');
      assert.deepEqual(
        off.body.errors.map((e: any) => [e.code, e.kafkaError?.code]),
        [['LOG_DIR_OFFLINE', 56]],
      );
    } finally {
      gw.sim.logDirs.setOffline(2, DIRS[1], false);
    }
    assert.deepEqual(await clusterState(), before, 'a rejected request must leave the cluster unchanged');
  });
});
