// The reconcile side of deadline pacing, pure parts: when a decision is worth a record write,
// a demand's rates changed in place (lists kept), the copied share of the moving bytes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DeadlineState, SnapshotProgress } from '../../src/domain/reassignment/index.js';
import { movingDoneShare, withRate, worthWriting } from '../../src/reconcile/deadline-pacing.js';
import type { ReassignmentRecord } from '../../src/state/records.js';

const T0 = 1_700_000_000_000;
const state: DeadlineState = {
  finishBy: T0 + 1_000_000,
  bounds: { min: 1024, max: 1_000_000 },
  holds: true,
  expectedEnd: T0 + 950_000,
  expectedEndAtMax: T0 + 100_000,
  efficiency: 0.9,
  sample: { at: T0 + 10_000, broker: 1, bytesLeft: 5000, allowedBytes: 100, markAt: T0 + 12_000 },
  decidedAt: T0 + 12_000,
};

describe('worthWriting', () => {
  it('only for a new rate, a flip, a closed window, a moved forecast or an old one', () => {
    const next = {
      ...state,
      sample: { ...state.sample!, allowedBytes: 300, markAt: T0 + 14_000 },
      expectedEnd: T0 + 955_000,
      decidedAt: T0 + 14_000,
    };
    assert.equal(worthWriting(state, next, false, T0), false);
    assert.equal(worthWriting(state, next, true, T0), true);
    assert.equal(worthWriting(state, { ...next, holds: false }, false, T0), true);
    assert.equal(worthWriting(state, { ...next, efficiency: 0.8 }, false, T0), true);
    assert.equal(worthWriting(state, { ...next, sample: { ...next.sample, at: T0 + 14_000 } }, false, T0), true);
    assert.equal(worthWriting(state, { ...next, expectedEnd: T0 + 961_000 }, false, T0), true); // > 1 % of 1000 s
    assert.equal(worthWriting(state, { ...next, decidedAt: T0 + 42_000 }, false, T0), true);
  });
});

describe('withRate', () => {
  it('every rate the demand sets becomes the new one; the lists are the same object; unchanged -> same demand', () => {
    const topics = { t: { leader: ['0:1'], follower: ['0:2'] } };
    const demand = {
      topics,
      brokers: { '1': { leaderRate: 10, followerRate: 10 }, '2': { leaderRate: 10, followerRate: 10, logDirRate: 10 } },
    };
    const out = withRate(demand, 20);
    assert.equal(out.topics, topics);
    assert.deepEqual(out.brokers, { '1': { leaderRate: 20, followerRate: 20 }, '2': { leaderRate: 20, followerRate: 20, logDirRate: 20 } });
    assert.equal(withRate(out, 20), out);
  });
});

describe('movingDoneShare', () => {
  it("the snapshot's bytes done less the completed partitions', over the moving ones'", () => {
    const p = (state: string, bytesTotal: number) => ({ topic: 't', partition: 0, original: [0], target: [1], state, bytesTotal });
    const r = { partitions: [p('completed', 100), p('moving', 200), p('moving', 200), p('queued', 500)] } as unknown as ReassignmentRecord;
    const progress = (bytesDone: number) => ({ bytesDone }) as SnapshotProgress;
    assert.equal(movingDoneShare(r, progress(200)), 0.25);
    assert.equal(movingDoneShare(r, progress(50)), 0); // a partition completed after the snapshot
    assert.equal(movingDoneShare(r, progress(900)), 1);
  });
});
