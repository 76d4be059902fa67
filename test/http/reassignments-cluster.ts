// Shared by the /reassignments integration tests (reassignments*.integration.test.ts): a
// simulated 4-broker cluster, the real Kafka layer and the reconciler, with a ManualClock driving
// both the simulator's replica copies and the gateway's clock; the helpers below read its state
// (clusterState, and rejected: a 4xx that must leave it unchanged) and drive it (advanceUntil).
// `gw` and `clock` are live bindings, set by useReassignmentsCluster()'s before() hook.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { Response } from 'supertest';
import { ManualClock } from '../../src/sim/index.js';
import { expectProblem, snapshotCluster } from './helpers.js';
import { startReassignGateway, throttleConfigs, type ReassignGateway } from './reassignment-helpers.js';
import { eventually } from '../eventually.js';

export const BANDWIDTH = 100_000; // bytes/s per broker and direction, unthrottled
export let clock: ManualClock;
export let gw: ReassignGateway;

/** One 4-broker cluster and gateway for the test file that calls it (started before its tests, closed after). */
export function useReassignmentsCluster(): void {
  before(async () => {
    clock = new ManualClock();
    gw = await startReassignGateway({ clock, simulator: { brokers: 4, replicationBytesPerSecond: BANDWIDTH } });
  });
  after(() => gw?.close());
}

export async function clusterState() {
  return {
    topics: await snapshotCluster(gw.app),
    throttles: await throttleConfigs(gw.kafka),
    moving: await gw.kafka.listPartitionReassignments(),
  };
}

/** Sends, expects the problem, and checks that nothing changed in the cluster. */
export async function rejected(send: () => Promise<Response>, status: number, slug: string): Promise<Response> {
  const before = await clusterState();
  const res = await send();
  expectProblem(res, status, slug);
  assert.deepEqual(await clusterState(), before, 'a rejected request must leave the cluster unchanged');
  return res;
}

/** POST with `?detail=true`: the answer carries the plan's per-partition rows. */
export const post = (body: unknown) =>
  gw
    .http()
    .post('/reassignments?detail=true')
    .send(body as object);

/** GET /reassignments/{id} once a progress snapshot as of the clock's time exists (the reconciler takes one per interval). */
export async function current(id: string): Promise<Record<string, any>> {
  const at = new Date(clock.now()).toISOString();
  return eventually(async () => {
    const g = await gw.http().get(`/reassignments/${id}`);
    assert.equal(g.status, 200, JSON.stringify(g.body));
    return g.body.progress.asOf === at ? g.body : undefined;
  });
}

/** The first page of a reassignment's partitions. */
export async function page(id: string, query = ''): Promise<any[]> {
  const r = await gw.http().get(`/reassignments/${id}/partitions${query}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.items;
}

/** Advance the shared clock in steps until the reassignment is in `state` (the reconciler notices). */
export async function advanceUntil(id: string, state: string, stepMs = 1000): Promise<Record<string, any>> {
  return eventually(
    async () => {
      const res = await gw.http().get(`/reassignments/${id}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      if (res.body.state === state) return res.body;
      clock.advance(stepMs);
      return undefined;
    },
    20_000,
    60,
  );
}

export async function noThrottlesLeft(): Promise<void> {
  await eventually(async () => {
    const t = await throttleConfigs(gw.kafka);
    assert.deepEqual(t, {});
    return true;
  });
}
