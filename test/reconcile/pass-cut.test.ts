// When a reconcile pass stops short because the end watch saw an end after the pass read
// Kafka's moves (reconciler.ts passMayBeCut).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { passMayBeCut } from '../../src/reconcile/reconciler.js';

describe('passMayBeCut', () => {
  it('only a pass of the loop, only with an end seen after its read of the moves', () => {
    assert.equal(passMayBeCut({ scheduled: true, cutLast: false, movesStale: true, sampleDrained: false }), true);
    assert.equal(
      passMayBeCut({ scheduled: false, cutLast: false, movesStale: true, sampleDrained: true }),
      false,
      'a pass run by hand (tests, pacing) is never cut',
    );
    assert.equal(
      passMayBeCut({ scheduled: true, cutLast: false, movesStale: false, sampleDrained: false }),
      false,
      'nothing ended since the read',
    );
  });

  it('not twice in a row while moves keep ending, unless the watch saw its whole sample (the likely last moves) end', () => {
    assert.equal(passMayBeCut({ scheduled: true, cutLast: true, movesStale: true, sampleDrained: false }), false);
    assert.equal(passMayBeCut({ scheduled: true, cutLast: true, movesStale: true, sampleDrained: true }), true);
    assert.equal(
      passMayBeCut({ scheduled: true, cutLast: true, movesStale: false, sampleDrained: true }),
      false,
      'drained before the read: the read saw it',
    );
  });
});
