import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import {
  DEFAULT_QUOTA_WINDOW,
  burstFor,
  chargeInOrder,
  createBucket,
  createBucketForRate,
  recordMutation,
  recordPermissive,
  refill,
  remainingThrottleMs,
  snapshot,
  throttleTimeForTokens,
  throttleTimeMs,
  tryRecordStrict,
  windowSecondsOf,
  withRate,
  type TokenBucket,
} from '../../src/domain/token-bucket.js';

/** rate 2/s, default window 11 x 1 s -> burst 22 (the SEMANTICS.md example). */
const fresh = (nowMs = 0): TokenBucket => createBucketForRate(2, nowMs);

describe('burst and creation', () => {
  it('burst = windowNum x windowSizeSeconds x rate (defaults 11 x 1)', () => {
    assert.deepEqual(DEFAULT_QUOTA_WINDOW, { windowNum: 11, windowSizeSeconds: 1 });
    assert.equal(burstFor(2), 22);
    assert.equal(burstFor(5, { windowNum: 100, windowSizeSeconds: 1 }), 500); // TokenBucket javadoc example
    assert.equal(burstFor(2, { windowNum: 10, windowSizeSeconds: 2 }), 40);
  });

  it('a new bucket starts full', () => {
    const b = createBucket(2, 22, 1000);
    assert.deepEqual({ ...b }, { rate: 2, burst: 22, tokens: 22, lastUpdateMs: 1000 });
    assert.equal(fresh().tokens, 22);
  });

  it('buckets are frozen plain data', () => {
    const b = fresh();
    assert.ok(Object.isFrozen(b));
    const r = tryRecordStrict(b, 5, 0);
    assert.equal(b.tokens, 22, 'input untouched');
    assert.ok(Object.isFrozen(r.bucket));
  });

  it('rejects bad rate / burst / clock', () => {
    assert.throws(() => createBucket(0, 0, 0), RangeError);
    assert.throws(() => createBucket(-1, 1, 0), RangeError);
    assert.throws(() => createBucket(Number.NaN, 1, 0), RangeError);
    assert.throws(() => createBucket(1, -1, 0), RangeError);
    assert.throws(() => createBucket(1, 11, Number.POSITIVE_INFINITY), RangeError);
    assert.throws(() => tryRecordStrict(fresh(), -1, 0), RangeError);
    assert.throws(() => recordPermissive(fresh(), Number.NaN, 0), RangeError);
  });
});

describe('refill', () => {
  it('adds rate x elapsed seconds, to the millisecond', () => {
    const b = { ...fresh(), tokens: -8 };
    assert.equal(refill(b, 1).tokens, -8 + 0.002);
    assert.equal(refill(b, 500).tokens, -7);
    assert.equal(refill(b, 4000).tokens, 0);
    assert.equal(refill(b, 4000).lastUpdateMs, 4000);
  });

  it('caps at burst', () => {
    const b = { ...fresh(), tokens: 20 };
    assert.equal(refill(b, 999).tokens, 21.998);
    assert.equal(refill(b, 1000).tokens, 22);
    assert.equal(refill(b, 1001).tokens, 22);
    assert.equal(refill(b, 3_600_000).tokens, 22);
    assert.equal(refill(fresh(), 5000).tokens, 22);
  });

  it('a clock going backwards adds nothing and keeps lastUpdateMs', () => {
    const b = { ...fresh(10_000), tokens: -4 };
    const r = refill(b, 9_000);
    assert.equal(r.tokens, -4);
    assert.equal(r.lastUpdateMs, 10_000);
  });

  it('refilling in steps equals refilling at once (linear, same lastUpdate bookkeeping)', () => {
    const b = { ...fresh(), tokens: -8 };
    const stepped = refill(refill(refill(b, 1000), 2500), 4000);
    assert.equal(stepped.tokens, 0);
  });
});

describe('strict mode (check before record)', () => {
  it('SEMANTICS example: rate 2, burst 22, 30-partition topics', () => {
    let b = fresh(0);
    const first = tryRecordStrict(b, 30, 0);
    assert.equal(first.accepted, true);
    assert.equal(first.throttleTimeMs, 0);
    assert.equal(first.bucket.tokens, -8);
    b = first.bucket;

    const second = tryRecordStrict(b, 30, 0);
    assert.equal(second.accepted, false);
    assert.equal(second.throttleTimeMs, 4000);
    assert.equal(second.bucket.tokens, -8, 'rejection costs nothing');

    const at1 = tryRecordStrict(b, 30, 1);
    assert.equal(at1.accepted, false);
    assert.equal(at1.throttleTimeMs, 3999);

    const at2000 = tryRecordStrict(b, 30, 2000);
    assert.equal(at2000.accepted, false);
    assert.equal(at2000.throttleTimeMs, 2000);

    const at3999 = tryRecordStrict(b, 30, 3999);
    assert.equal(at3999.accepted, false);
    assert.equal(at3999.throttleTimeMs, 1);

    const at4000 = tryRecordStrict(b, 30, 4000);
    assert.equal(at4000.accepted, true, 'tokens exactly 0 is not a violation');
    assert.equal(at4000.throttleTimeMs, 0);
    assert.equal(at4000.bucket.tokens, -30);
    assert.equal(at4000.bucket.lastUpdateMs, 4000);
  });

  it('accepts any cost while tokens >= 0, however far below zero it goes', () => {
    const r = tryRecordStrict(fresh(), 10_000, 0);
    assert.equal(r.accepted, true);
    assert.equal(r.bucket.tokens, 22 - 10_000);
    assert.equal(throttleTimeMs(r.bucket, 0), Math.round((9978 / 2) * 1000));
  });

  it('a small tail of positive tokens still admits a big topic', () => {
    const b = { ...fresh(), tokens: 0.5 };
    const r = tryRecordStrict(b, 100, 0);
    assert.equal(r.accepted, true);
    assert.equal(r.bucket.tokens, -99.5);
  });

  it('cost 0 is accepted when tokens >= 0 and rejected when negative', () => {
    assert.equal(tryRecordStrict(fresh(), 0, 0).accepted, true);
    assert.equal(tryRecordStrict({ ...fresh(), tokens: -1 }, 0, 0).accepted, false);
  });

  it('rejection with a sub-half-millisecond deficit reports throttle 0 (Kafka Math.round)', () => {
    const b = { ...fresh(), tokens: -0.0009 }; // 0.45 ms at 2/s
    const r = tryRecordStrict(b, 1, 0);
    assert.equal(r.accepted, false);
    assert.equal(r.throttleTimeMs, 0);
  });

  it('the rejected result carries the refilled bucket', () => {
    const r = tryRecordStrict({ ...fresh(), tokens: -8 }, 1, 1000);
    assert.equal(r.bucket.tokens, -6);
    assert.equal(r.bucket.lastUpdateMs, 1000);
  });

  it('throttle rounding follows Math.round(-tokens / rate * 1000)', () => {
    assert.equal(throttleTimeForTokens(-1, 3), 333);
    assert.equal(throttleTimeForTokens(-2, 3), 667);
    assert.equal(throttleTimeForTokens(-0.0005, 1), 1); // 0.5 ms rounds up
    assert.equal(throttleTimeForTokens(0, 3), 0);
    assert.equal(throttleTimeForTokens(5, 3), 0);
  });
});

describe('permissive mode (record then check)', () => {
  it('never rejects and reports the throttle after recording', () => {
    const first = recordPermissive(fresh(), 30, 0);
    assert.equal(first.accepted, true);
    assert.equal(first.bucket.tokens, -8);
    assert.equal(first.throttleTimeMs, 4000, 'differs from strict: the first call is already throttled');

    const second = recordPermissive(first.bucket, 30, 0);
    assert.equal(second.accepted, true);
    assert.equal(second.bucket.tokens, -38);
    assert.equal(second.throttleTimeMs, 19_000);
  });

  it('no throttle while the bucket stays >= 0', () => {
    const r = recordPermissive(fresh(), 22, 0);
    assert.equal(r.bucket.tokens, 0);
    assert.equal(r.throttleTimeMs, 0);
  });

  it('refills before recording', () => {
    const r = recordPermissive({ ...fresh(), tokens: -8 }, 2, 3000);
    assert.equal(r.bucket.tokens, -4);
    assert.equal(r.throttleTimeMs, 2000);
  });

  it('recordMutation dispatches on mode', () => {
    const b = { ...fresh(), tokens: -1 };
    assert.equal(recordMutation(b, 1, 0, 'strict').accepted, false);
    const p = recordMutation(b, 1, 0, 'permissive');
    assert.equal(p.accepted, true);
    assert.equal(p.bucket.tokens, -2);
  });
});

describe('throttleTimeMs(bucket, nowMs)', () => {
  it('counts down to 0 as the bucket refills', () => {
    const b = { ...fresh(), tokens: -8 };
    assert.equal(throttleTimeMs(b, 0), 4000);
    assert.equal(throttleTimeMs(b, 1500), 2500);
    assert.equal(throttleTimeMs(b, 3999), 1);
    assert.equal(throttleTimeMs(b, 4000), 0);
    assert.equal(throttleTimeMs(b, 9000), 0);
  });
});

describe('chargeInOrder (topic by topic, request order)', () => {
  it('strict: earlier topics pass, the rest is rejected with the same throttle', () => {
    const r = chargeInOrder(fresh(), [10, 10, 10, 5], 0, 'strict');
    assert.deepEqual(
      r.results.map((x) => [x.accepted, x.throttleTimeMs]),
      [
        [true, 0],
        [true, 0],
        [true, 0], // 2 tokens left -> accepted, bucket -8
        [false, 4000],
      ],
    );
    assert.equal(r.bucket.tokens, -8);
    assert.equal(r.throttleTimeMs, 4000);
  });

  it('strict: nothing throttled -> request throttle 0', () => {
    const r = chargeInOrder(fresh(), [1, 2, 3], 0, 'strict');
    assert.equal(r.throttleTimeMs, 0);
    assert.equal(r.bucket.tokens, 16);
  });

  it('permissive: all accepted, request throttle is the last violation', () => {
    const r = chargeInOrder(fresh(), [20, 4, 4], 0, 'permissive');
    assert.deepEqual(
      r.results.map((x) => x.throttleTimeMs),
      [0, 1000, 3000],
    );
    assert.ok(r.results.every((x) => x.accepted));
    assert.equal(r.throttleTimeMs, 3000);
  });

  it('empty request leaves the bucket as refilled-or-untouched', () => {
    const b = fresh();
    const r = chargeInOrder(b, [], 0, 'strict');
    assert.equal(r.bucket, b);
    assert.equal(r.throttleTimeMs, 0);
  });
});

describe('remainingThrottleMs (AbstractControllerMutationQuota.throttleTime)', () => {
  it('deducts the time elapsed since the throttle was computed, floored at 0', () => {
    assert.equal(remainingThrottleMs(4000, 1000, 1000), 4000);
    assert.equal(remainingThrottleMs(4000, 1000, 1250), 3750);
    assert.equal(remainingThrottleMs(4000, 1000, 5000), 0);
    assert.equal(remainingThrottleMs(4000, 1000, 9000), 0);
    assert.equal(remainingThrottleMs(0, 1000, 0), 0);
  });
});

describe('rate changes (withRate)', () => {
  it('keeps tokens and lastUpdateMs; new burst keeps the window span', () => {
    const b = { ...fresh(), tokens: -8, lastUpdateMs: 1000 };
    const c = withRate(b, 4);
    assert.deepEqual({ ...c }, { rate: 4, burst: 44, tokens: -8, lastUpdateMs: 1000 });
  });

  it('the new rate refills the whole interval since the last update (Kafka parity)', () => {
    const b = { ...fresh(), tokens: -8 }; // lastUpdateMs 0, old rate 2
    const raised = withRate(b, 4);
    assert.equal(refill(raised, 1000).tokens, -4);
    assert.equal(tryRecordStrict(raised, 1, 2000).accepted, true);
    const settledFirst = withRate(refill(b, 1000), 4); // caller's alternative
    assert.equal(settledFirst.tokens, -6);
  });

  it('clamps tokens to a lower burst', () => {
    const c = withRate(fresh(), 1); // burst 11
    assert.equal(c.burst, 11);
    assert.equal(c.tokens, 11);
    assert.equal(refill(c, 10_000).tokens, 11);
  });

  it('eager clamp equals Kafka clamp-at-next-refill', () => {
    const b = { ...fresh(), tokens: 20 };
    const lazy = Math.min(11, 20 + 1 * 0.5); // Kafka: refill with new quota, new burst
    assert.equal(refill(withRate(b, 1), 500).tokens, lazy);
  });

  it('accepts an explicit burst and rejects bad rates', () => {
    assert.equal(withRate(fresh(), 3, 30).burst, 30);
    assert.throws(() => withRate(fresh(), 0), RangeError);
  });

  it('windowSecondsOf survives float noise', () => {
    assert.equal(windowSecondsOf(createBucketForRate(0.1, 0)), 11);
    assert.equal(windowSecondsOf(createBucketForRate(2, 0, { windowNum: 10, windowSizeSeconds: 2 })), 20);
  });
});

describe('snapshot', () => {
  it('reports refilled tokens, throttle and time until full', () => {
    const s = snapshot({ ...fresh(), tokens: -8 }, 1000);
    assert.deepEqual(s, {
      rate: 2,
      burst: 22,
      tokens: -6,
      windowSeconds: 11,
      nowMs: 1000,
      throttleTimeMs: 3000,
      msUntilFull: 14_000,
    });
    assert.equal(snapshot(fresh(), 0).msUntilFull, 0);
  });
});
