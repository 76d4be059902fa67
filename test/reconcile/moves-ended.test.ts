// Which running records a pass may record as "moves ended" (movesEndedAt) before reading their
// partitions' placement: exactly those #decide is bound to end (completed or cancelled) whatever
// the placement, and that have throttles to remove.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { movesEndedRecords } from '../../src/reconcile/reconciler.js';
import { demandsThrottles, liveDemands } from '../../src/reconcile/ownership.js';
import type { AttributedMoves } from '../../src/reconcile/ownership.js';
import type { ReassignmentRecord } from '../../src/state/records.js';
import type { StateView } from '../../src/state/store.js';

const demand = { topics: { t: { leader: ['0:1'], follower: ['0:2'] } }, brokers: {} };
const rec = (id: string, partitions: object[], extra: Record<string, unknown> = {}): ReassignmentRecord =>
  ({ id, state: 'running', partitions, throttleDemand: demand, autoRemoveThrottle: true, ...extra }) as unknown as ReassignmentRecord;
const viewOf = (records: ReassignmentRecord[]): StateView => ({
  reassignments: new Map(records.map((r) => [r.id, r])),
  throttleRequests: new Map(),
  ledger: new Map(),
  progress: new Map(),
});
const movesOf = (movingOf: Record<string, string[]>): AttributedMoves => ({
  movingIds: new Set(Object.values(movingOf).flat()),
  movingOf: new Map(Object.entries(movingOf).map(([k, v]) => [k, new Set(v)])),
  gateway: 0,
  external: 0,
});
const p = (partition: number, state: string, extra: Record<string, unknown> = {}) => ({
  topic: 't',
  partition,
  state,
  target: [1],
  ...extra,
});

it('movesEndedRecords: running records with throttles to remove, none of whose partitions moves, waits for a wave or for its intra-broker copy', async () => {
  const many = Array.from({ length: 1000 }, (_, i) => p(i, i % 3 === 0 ? 'completed' : 'moving'));
  const records = [
    rec('ended', [p(0, 'moving'), p(1, 'completed'), p(2, 'failed')]),
    rec('ended-large', many),
    rec('still-moving', [p(3, 'moving'), p(4, 'moving')]),
    rec('queued', [p(5, 'moving'), p(6, 'queued')], { concurrency: { perBroker: 1, cluster: null } }),
    rec('queued-superseded', [p(7, 'moving'), p(8, 'queued', { supersededBy: 'x' })]),
    rec('copying', [p(9, 'moving', { logDirs: ['/d'] })]),
    rec('copied', [p(10, 'moving', { logDirs: ['/d'] })]),
    rec('no-throttle', [p(11, 'moving')], { throttleDemand: null }),
    rec('kept', [p(12, 'moving')], { autoRemoveThrottle: false }),
    rec('pending', [p(13, 'moving')], { state: 'pending' }),
    rec('already', [p(14, 'moving')], { movesEndedAt: 5 }),
    rec('changed', [p(15, 'moving')]),
  ];
  const view = viewOf(records);
  const before = new Map(records.map((r) => [r.id, r.id === 'changed' ? { ...r } : r]));
  const got = await movesEndedRecords(
    view,
    before,
    movesOf({ 'still-moving': ['t:4'] }),
    new Set(['t:9']),
    () => new Promise<void>((r) => setImmediate(r)),
  );
  assert.deepEqual([...got].sort(), ['copied', 'ended', 'ended-large', 'queued-superseded']);
});

it('a record whose moves are recorded as ended demands no throttles', () => {
  const running = rec('r', [p(0, 'moving')]);
  const ended = { ...running, movesEndedAt: 1 };
  assert.equal(demandsThrottles(running), true);
  assert.equal(demandsThrottles(ended), false);
  assert.deepEqual(liveDemands(viewOf([running]), 0), [demand]);
  assert.deepEqual(liveDemands(viewOf([ended]), 0), []);
});
