// F4's randomized proof: two gateway instances (reconcilers on) take random, concurrent
// throttle changes over HTTP on one simulated cluster that already holds someone else's
// throttles. After every round both instances settle, and EVERY throttle config must be
// exactly what the live demands ask for plus what was there before: nothing left behind,
// nothing foreign changed. At the end all demands are removed: only the foreign values remain.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { mergeThrottleDemands } from '../../src/domain/reassignment/index.js';
import { liveDemands } from '../../src/reconcile/ownership.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { startReassignGateway, throttleConfigs, type ReassignGateway } from '../http/reassignment-helpers.js';
import { eventually } from '../eventually.js';

const STATE = '_kafka_admin_gateway_state';
const ROUNDS = Number(process.env.SOAK_ROUNDS ?? 12);
const TOPICS = ['soak-a', 'soak-b'];
const FOREIGN: Record<string, Record<string, string>> = {
  'broker:3': { 'leader.replication.throttled.rate': '7777' },
  'topic:soak-a': { 'follower.replication.throttled.replicas': '0:3' },
};

let sim: Simulator;
let a: ReassignGateway;
let b: ReassignGateway;
before(async () => {
  sim = await startSimulator({ brokers: 4 });
  a = await startReassignGateway({ sim, env: { GATEWAY_INSTANCE_ID: 'a', RECONCILE_INTERVAL_MS: '50' } });
  b = await startReassignGateway({ sim, env: { GATEWAY_INSTANCE_ID: 'b', RECONCILE_INTERVAL_MS: '50' } });
  for (const t of TOPICS)
    assert.equal(
      (
        await a
          .http()
          .post('/topics')
          .send({
            name: t,
            assignments: [
              [0, 1],
              [1, 2],
              [2, 3],
            ],
          })
      ).status,
      201,
    );
  const set = await a.kafka.incrementalAlterConfigs([
    { kind: 'broker', name: '3', ops: [{ name: 'leader.replication.throttled.rate', op: 'SET', value: '7777' }] },
    { kind: 'topic', name: 'soak-a', ops: [{ name: 'follower.replication.throttled.replicas', op: 'SET', value: '0:3' }] },
  ]);
  assert.ok(set.every((r) => r.ok));
});
after(async () => {
  await a?.close();
  await b?.close();
  await sim?.close();
});

let seed = Number(process.env.SOAK_SEED ?? 20261202);
const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
const pick = <T>(xs: readonly T[]): T => xs[rnd(xs.length)];

function randomOp(gw: ReassignGateway) {
  switch (rnd(4)) {
    case 0:
      return gw
        .http()
        .put('/throttles/rates')
        .send({ rates: [{ broker: rnd(4), leaderRate: 1024 * (1 + rnd(50)), followerRate: 1024 * (1 + rnd(50)) }] });
    case 1: {
      const partition = rnd(3);
      return gw
        .http()
        .put('/throttles/replicas')
        .send({ replicas: [{ topic: pick(TOPICS), partition, follower: [rnd(4)], leader: [rnd(4)] }] });
    }
    case 2:
      return gw.http().delete(`/throttles/rates?brokers=${rnd(4)}`);
    default:
      return gw.http().delete(`/throttles/replicas?topics=${pick(TOPICS)}`);
  }
}

/** What must be configured now: every live demand, plus the foreign values (kept, or restored). */
async function expected(gw: ReassignGateway): Promise<Record<string, Record<string, string>>> {
  const view = await gw.runtime.store.refresh();
  const d = mergeThrottleDemands(liveDemands(view, Date.now()));
  const out: Record<string, Record<string, string>> = JSON.parse(JSON.stringify(FOREIGN));
  for (const [broker, r] of Object.entries(d.brokers)) {
    const e = (out[`broker:${broker}`] ??= {});
    if (r.leaderRate !== undefined) e['leader.replication.throttled.rate'] = String(r.leaderRate);
    if (r.followerRate !== undefined) e['follower.replication.throttled.rate'] = String(r.followerRate);
  }
  for (const [topic, t] of Object.entries(d.topics)) {
    for (const [dir, name] of [
      ['leader', 'leader.replication.throttled.replicas'],
      ['follower', 'follower.replication.throttled.replicas'],
    ] as const) {
      const want = t[dir];
      if (want === undefined || want === '*') continue;
      const e = (out[`topic:${topic}`] ??= {});
      const entries = new Set([...(e[name]?.split(',') ?? []), ...want]);
      if (entries.size) e[name] = [...entries].sort().join(',');
    }
  }
  return out;
}

async function actual(gw: ReassignGateway): Promise<Record<string, Record<string, string>>> {
  const all = await throttleConfigs(gw.kafka);
  delete all[`topic:${STATE}`];
  for (const v of Object.values(all)) for (const k of Object.keys(v)) if (k.endsWith('replicas')) v[k] = v[k].split(',').sort().join(',');
  return all;
}

async function settled(): Promise<void> {
  // Both instances have nothing left to change (the reconcilers keep running meanwhile).
  await eventually(async () => {
    const ra = await a.runtime.throttleSync.sync();
    const rb = await b.runtime.throttleSync.sync();
    return ra.converged && rb.converged && ra.alterations.length === 0 && rb.alterations.length === 0 ? true : undefined;
  }, 30_000);
}

it(`${ROUNDS} rounds of concurrent random throttle changes on two instances: every config is demanded or was there before`, async () => {
  let ops = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const batch = Array.from({ length: 6 }, (_, i) => randomOp(i % 2 ? a : b));
    const answers = await Promise.all(batch);
    ops += answers.length;
    for (const r of answers)
      assert.equal(
        r.status,
        200,
        `round ${round}: ${r.status} ${JSON.stringify(r.body)} ${JSON.stringify([...a.logger.errors, ...b.logger.errors]).slice(0, 3000)}`,
      );
    await settled();
    assert.deepEqual(await actual(a), await expected(a), `round ${round}`);
  }
  // Every demand removed (the gateway's only): the foreign values alone remain, as they were.
  assert.equal((await a.http().delete('/throttles/rates')).status, 200);
  assert.equal((await b.http().delete('/throttles/replicas')).status, 200);
  await settled();
  assert.deepEqual(await actual(a), FOREIGN, `after ${ops} operations`);
  await a.runtime.store.refresh();
  assert.equal(a.runtime.store.view().ledger.size, 0, 'the ledger is empty');
});
