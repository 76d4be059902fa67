// progressFromSnapshots: rate, ETA and stall from the shared snapshots alone (no reader clock).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { progressFromSnapshots } from '../../../src/domain/reassignment/index.js';

describe('progressFromSnapshots', () => {
  it('rate over the window ending at the latest snapshot, ETA from it, percent floored', () => {
    const s = [
      { t: 0, bytesTotal: 1000, bytesDone: 0 },
      { t: 10_000, bytesTotal: 1000, bytesDone: 100 },
      { t: 40_000, bytesTotal: 1000, bytesDone: 400 },
      { t: 50_000, bytesTotal: 1000, bytesDone: 500 },
    ];
    const p = progressFromSnapshots(s, 50_000, { windowMs: 30_000 });
    // The window reaches back to the first snapshot at or before 50 000 - 30 000: t = 10 000.
    assert.equal(p.bytesPerSecond, 10);
    assert.equal(p.etaSeconds, 50);
    assert.equal(p.percent, 50);
    assert.equal(p.stalled, false);
    assert.equal(p.asOfMs, 50_000);
  });

  it('the same snapshots give the same answer whoever reads them, and when', () => {
    const s = [
      { t: 1, bytesTotal: 3, bytesDone: 1 },
      { t: 1001, bytesTotal: 3, bytesDone: 2 },
    ];
    assert.deepEqual(
      progressFromSnapshots(s, 1001),
      progressFromSnapshots(
        s.map((x) => ({ ...x })),
        1001,
      ),
    );
    assert.equal(progressFromSnapshots(s, 1001).percent, 66.66);
  });

  it('stalled when nothing was copied for stallAfterMs up to the latest snapshot; not when done', () => {
    const s = [
      { t: 0, bytesTotal: 100, bytesDone: 10 },
      { t: 5000, bytesTotal: 100, bytesDone: 10 },
    ];
    assert.equal(progressFromSnapshots(s, 0, { stallAfterMs: 5000 }).stalled, true);
    assert.equal(progressFromSnapshots(s, 0, { stallAfterMs: 5001 }).stalled, false);
    assert.equal(progressFromSnapshots(s, 0, { stallAfterMs: 5000 }).etaSeconds, null, 'no rate, no ETA');
    const done = [{ t: 0, bytesTotal: 100, bytesDone: 100 }];
    assert.deepEqual(
      [
        progressFromSnapshots(done, null, { stallAfterMs: 0 }).stalled,
        progressFromSnapshots(done, null).etaSeconds,
        progressFromSnapshots(done, null).percent,
      ],
      [false, 0, 100],
    );
  });

  it('no snapshot: zeros and nulls', () => {
    const p = progressFromSnapshots([], null);
    assert.deepEqual([p.bytesTotal, p.bytesDone, p.bytesPerSecond, p.etaSeconds, p.asOfMs], [0, 0, null, null, null]);
  });
});
