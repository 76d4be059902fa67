import { describe, it } from 'node:test';
import fc from 'fast-check';
import assert from 'node:assert/strict';

import {
  DEFAULT_POLICY_NAME,
  effectiveWindowSeconds,
  formatRateLimit,
  formatRateLimitPolicy,
  rateLimitHeaders,
  rateLimitHeadersFromSnapshot,
  retryAfterSeconds,
} from '../../src/domain/retry-after.js';
import { createBucketForRate, snapshot, tryRecordStrict } from '../../src/domain/token-bucket.js';

describe('retryAfterSeconds', () => {
  it('rounds whole seconds UP', () => {
    assert.equal(retryAfterSeconds(1), 1);
    assert.equal(retryAfterSeconds(999), 1);
    assert.equal(retryAfterSeconds(1000), 1);
    assert.equal(retryAfterSeconds(1001), 2);
    assert.equal(retryAfterSeconds(3999), 4);
    assert.equal(retryAfterSeconds(4000), 4);
    assert.equal(retryAfterSeconds(4001), 5);
    assert.equal(retryAfterSeconds(59_999.5), 60);
  });

  it('a 429 always says at least 1 second (0, negative, NaN -> 1)', () => {
    assert.equal(retryAfterSeconds(0), 1);
    assert.equal(retryAfterSeconds(-5), 1);
    assert.equal(retryAfterSeconds(Number.NaN), 1);
  });

  it('rejects infinity', () => {
    assert.throws(() => retryAfterSeconds(Number.POSITIVE_INFINITY), RangeError);
  });

  it('no throttle time from Kafka (undefined) or -Infinity -> 1', () => {
    assert.equal(retryAfterSeconds(undefined), 1);
    assert.equal(retryAfterSeconds(Number.NEGATIVE_INFINITY), 1);
  });

  it('any throttle_time_ms Kafka can send (int32): an integer >= 1, never before the throttle ends, at most 1 s after (RFC 9110 delay-seconds)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), (ms) => {
        const s = retryAfterSeconds(ms);
        assert.ok(Number.isSafeInteger(s) && s >= 1, `${ms} ms -> ${s}`);
        assert.ok(s * 1000 >= ms, `${ms} ms -> ${s} s is before the throttle ends`);
        if (ms > 1000) assert.ok((s - 1) * 1000 < ms, `${ms} ms -> ${s} s is a whole second too late`);
      }),
    );
  });
});

describe('formatting', () => {
  it('RateLimit-Policy: "mutations";q=<burst>;w=<window>', () => {
    assert.equal(DEFAULT_POLICY_NAME, 'mutations');
    assert.equal(formatRateLimitPolicy({ quota: 22, windowSeconds: 11 }), '"mutations";q=22;w=11');
    assert.equal(formatRateLimitPolicy({ name: 'p', quota: 5.5, windowSeconds: 11 }), '"p";q=5;w=11', 'q floored');
    assert.equal(formatRateLimitPolicy({ quota: 1.1000000000000001, windowSeconds: 11.000000000000002 }), '"mutations";q=1;w=11');
    assert.equal(formatRateLimitPolicy({ quota: 3, windowSeconds: 0.5 }), '"mutations";q=3;w=1', 'w >= 1');
    assert.equal(formatRateLimitPolicy({ quota: 1e20, windowSeconds: 11 }), '"mutations";q=999999999999999;w=11');
  });

  it('RateLimit: "mutations";r=<remaining>;t=<seconds>', () => {
    assert.equal(formatRateLimit({ remaining: 22, resetSeconds: 0 }), '"mutations";r=22;t=0');
    assert.equal(formatRateLimit({ remaining: 21.998, resetSeconds: 0.001 }), '"mutations";r=21;t=1');
    assert.equal(formatRateLimit({ remaining: -8, resetSeconds: 4 }), '"mutations";r=0;t=4');
    assert.equal(formatRateLimit({ remaining: 2.9999999999999996, resetSeconds: 3.0000000000000004 }), '"mutations";r=3;t=3');
  });

  it('escapes sf-strings and rejects non-printable names', () => {
    assert.equal(formatRateLimit({ name: 'a"b\\c', remaining: 1, resetSeconds: 1 }), '"a\\"b\\\\c";r=1;t=1');
    assert.throws(() => formatRateLimit({ name: 'é', remaining: 1, resetSeconds: 1 }), RangeError);
    assert.throws(() => formatRateLimitPolicy({ name: 'a\nb', quota: 1, windowSeconds: 1 }), RangeError);
  });

  it('optional partition key is an sf-binary', () => {
    assert.equal(
      formatRateLimitPolicy({ quota: 22, windowSeconds: 11, partitionKey: 'alice:app' }),
      '"mutations";q=22;w=11;pk=:YWxpY2U6YXBw:',
    );
    assert.equal(formatRateLimit({ remaining: 0, resetSeconds: 4, partitionKey: ':app' }), '"mutations";r=0;t=4;pk=:OmFwcA==:');
  });
});

describe('headers from a bucket (rate 2/s, burst 22)', () => {
  const full = createBucketForRate(2, 0);

  it('full bucket: r = burst, t = 0', () => {
    assert.deepEqual(rateLimitHeaders(full, 0), {
      'RateLimit-Policy': '"mutations";q=22;w=11',
      RateLimit: '"mutations";r=22;t=0',
    });
  });

  it('partly used: t = seconds until full, rounded up', () => {
    const used = tryRecordStrict(full, 5, 0).bucket; // 17 left, 2.5 s to full
    assert.equal(rateLimitHeaders(used, 0).RateLimit, '"mutations";r=17;t=3');
    assert.equal(rateLimitHeaders(used, 500).RateLimit, '"mutations";r=18;t=2');
    assert.equal(rateLimitHeaders(used, 2500).RateLimit, '"mutations";r=22;t=0');
  });

  it('in deficit: r = 0 and t = Retry-After, so Retry-After is never before the window end', () => {
    const neg = tryRecordStrict(full, 30, 0).bucket; // -8 -> 4000 ms
    const rejected = tryRecordStrict(neg, 30, 0);
    assert.equal(rejected.accepted, false);
    assert.equal(retryAfterSeconds(rejected.throttleTimeMs), 4);
    assert.equal(rateLimitHeaders(neg, 0).RateLimit, '"mutations";r=0;t=4');
    assert.equal(rateLimitHeaders(neg, 1).RateLimit, '"mutations";r=0;t=4');
    assert.equal(rateLimitHeaders(neg, 3001).RateLimit, '"mutations";r=0;t=1');
    assert.equal(rateLimitHeaders(neg, 3999).RateLimit, '"mutations";r=0;t=1');
    // Back to exactly 0 tokens: admissible again; t is now the time to refill fully (11 s).
    assert.equal(rateLimitHeaders(neg, 4000).RateLimit, '"mutations";r=0;t=11');
  });

  it('tiny deficit with Kafka throttle 0 still says t=1', () => {
    const s = snapshot({ ...full, tokens: -0.0009 }, 0);
    assert.equal(s.throttleTimeMs, 0);
    assert.equal(effectiveWindowSeconds(s), 1);
  });

  it('non-default window and fractional rate', () => {
    const b = createBucketForRate(0.5, 0, { windowNum: 10, windowSizeSeconds: 2 }); // burst 10, w 20
    assert.equal(rateLimitHeaders(b, 0)['RateLimit-Policy'], '"mutations";q=10;w=20');
    const slow = createBucketForRate(0.1, 0); // burst 1.1
    assert.equal(rateLimitHeaders(slow, 0)['RateLimit-Policy'], '"mutations";q=1;w=11');
  });

  it('name and partition key options flow into both headers', () => {
    const h = rateLimitHeadersFromSnapshot(snapshot(full, 0), { name: 'cm', partitionKey: 'k' });
    assert.deepEqual(h, { 'RateLimit-Policy': '"cm";q=22;w=11;pk=:aw==:', RateLimit: '"cm";r=22;t=0;pk=:aw==:' });
  });
});
