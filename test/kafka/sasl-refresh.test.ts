// Token refresh timing (pure, after Kafka's ExpiringCredentialRefreshingLogin) and the refreshing
// token source: cached until due, refreshed in the background, retried with backoff, the old
// token kept while valid when the IdP fails, never a token in an error.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isDue, refreshAtMs, retryWaitMs } from '../../src/kafka/sasl/refresh.js';
import { RefreshingToken, TransientTokenError, type FetchedToken } from '../../src/kafka/sasl/token-source.js';
import type { TokenRefreshConfig } from '../../src/kafka/sasl/config.js';
import { eventually } from '../eventually.js';

const KAFKA_DEFAULTS: TokenRefreshConfig = {
  windowFactor: 0.8,
  windowJitter: 0.05,
  minPeriodSeconds: 60,
  bufferSeconds: 300,
  retryBackoffMs: 100,
  retryBackoffMaxMs: 10000,
  timeoutMs: 10000,
};
const HOUR = 3600_000;

describe('refreshAtMs', () => {
  it('an hour-long token: between 0.75 and 0.8 of its life, before the broker re-authenticates at 0.8', () => {
    const t = { issuedAtMs: 0, expiresAtMs: HOUR };
    assert.equal(
      refreshAtMs(t, 0, KAFKA_DEFAULTS, () => 0),
      0.8 * HOUR,
    );
    assert.equal(
      refreshAtMs(t, 0, KAFKA_DEFAULTS, () => 1),
      0.75 * HOUR,
    );
  });

  it('keeps the buffer before expiry and the minimum period after now, as Kafka does', () => {
    // 10-minute token: 0.8 would be 8 min, later than exp - 300 s = 5 min.
    assert.equal(
      refreshAtMs({ issuedAtMs: 0, expiresAtMs: 600_000 }, 0, KAFKA_DEFAULTS, () => 0),
      300_000,
    );
    // Fetched late in its life (issued long ago): not sooner than min period after now.
    assert.equal(
      refreshAtMs({ issuedAtMs: 0, expiresAtMs: HOUR }, 0.79 * HOUR, KAFKA_DEFAULTS, () => 0),
      0.79 * HOUR + 60_000,
    );
  });

  it('a token shorter than both buffers: the buffers are ignored', () => {
    assert.equal(
      refreshAtMs({ issuedAtMs: 0, expiresAtMs: 4000 }, 0, KAFKA_DEFAULTS, () => 0),
      3200,
    );
  });

  it('property: always after now and before expiry (never in the past, never too late)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 * HOUR }),
        fc.integer({ min: 1, max: 10 * HOUR }),
        fc.integer({ min: 0, max: 10 * HOUR }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (issued, life, elapsed, r) => {
          const t = { issuedAtMs: issued, expiresAtMs: issued + life };
          const now = issued + Math.min(elapsed, life - 1);
          const at = refreshAtMs(t, now, KAFKA_DEFAULTS, () => r);
          return at >= now && at < t.expiresAtMs;
        },
      ),
    );
  });
});

it('isDue: past the window factor of the lifetime, less a small margin', () => {
  const t = { issuedAtMs: 0, expiresAtMs: HOUR };
  assert.equal(isDue(t, 0.78 * HOUR, KAFKA_DEFAULTS), false);
  assert.equal(isDue(t, 0.8 * HOUR - 1000, KAFKA_DEFAULTS), true);
  assert.equal(isDue({ issuedAtMs: 0, expiresAtMs: 4000 }, 3000, KAFKA_DEFAULTS), true); // margin 5 % of a short life
  assert.equal(isDue({ issuedAtMs: 0, expiresAtMs: 4000 }, 2700, KAFKA_DEFAULTS), false);
});

it('retryWaitMs: doubling, capped, with equal jitter', () => {
  assert.equal(
    retryWaitMs(KAFKA_DEFAULTS, 1, () => 0),
    50,
  );
  assert.equal(
    retryWaitMs(KAFKA_DEFAULTS, 3, () => 1),
    400,
  );
  assert.equal(
    retryWaitMs(KAFKA_DEFAULTS, 20, () => 0),
    5000,
  );
});

describe('RefreshingToken', () => {
  const SHORT: TokenRefreshConfig = { ...KAFKA_DEFAULTS, minPeriodSeconds: 0, bufferSeconds: 0, retryBackoffMs: 10, retryBackoffMaxMs: 40 };

  /** A fake IdP: tokens "t1", "t2", ... of `lifeMs`, or the errors queued in `fail`. */
  function idp(lifeMs: number) {
    const state = { n: 0, calls: 0, fail: [] as Error[] };
    const fetch = async (): Promise<FetchedToken> => {
      state.calls++;
      const e = state.fail.shift();
      if (e) throw e;
      const now = Date.now();
      return { value: `t${++state.n}`, issuedAtMs: now, expiresAtMs: now + lifeMs };
    };
    return { state, fetch };
  }

  /** Waits until the IdP was asked `n` times. */
  const fetches = (state: { n: number }, n: number) =>
    eventually(`${n} token fetches`, () => (state.n >= n ? true : undefined), { timeoutMs: 5000, everyMs: 5 });

  it('fetches once, then serves the cached token until it is due', async () => {
    const { state, fetch } = idp(HOUR);
    const src = new RefreshingToken('test IdP', fetch, KAFKA_DEFAULTS);
    assert.deepEqual(await Promise.all([src.token(), src.token(), src.token()]), ['t1', 't1', 't1']);
    assert.equal(state.calls, 1, 'concurrent askers share one fetch');
    src.close();
  });

  it('refreshes in the background before expiry while in use, and stops when closed', async () => {
    const { state, fetch } = idp(400);
    const src = new RefreshingToken('test IdP', fetch, SHORT);
    assert.equal(await src.token(), 't1');
    await fetches(state, 2);
    assert.equal(await src.token(), 't2');
    await fetches(state, 3);
    src.close();
    const n = state.n;
    await new Promise((r) => setTimeout(r, 600)); // two lifetimes: no fetch after close
    assert.equal(state.n, n);
  });

  it('an idle source does not refresh in the background; the next asker gets a fresh token', async () => {
    const { state, fetch } = idp(300);
    const src = new RefreshingToken('test IdP', fetch, SHORT);
    await src.token();
    await fetches(state, 2); // the one refresh after use
    await new Promise((r) => setTimeout(r, 500)); // more than a lifetime, nobody asking
    assert.equal(state.n, 2);
    assert.equal(await src.token(), 't3');
    src.close();
  });

  it('a failing refresh keeps the valid token, retries with backoff, and recovers', async () => {
    const { state, fetch } = idp(400);
    const failures: number[] = [];
    const src = new RefreshingToken('test IdP', fetch, SHORT, { events: { onRefreshFailed: (_e, n) => failures.push(n) } });
    await src.token();
    state.fail.push(new Error('IdP down'), new Error('IdP down'));
    await fetches(state, 2);
    assert.deepEqual(failures, [1, 2]);
    assert.equal(await src.token(), 't2');
    src.close();
  });

  it('transient errors are retried within one fetch; others and an expired token fail at once', async () => {
    const { state, fetch } = idp(HOUR);
    state.fail.push(new TransientTokenError('503'), new TransientTokenError('503'));
    const src = new RefreshingToken('test IdP', fetch, SHORT);
    assert.equal(await src.token(), 't1');
    assert.equal(state.calls, 3);

    const bad = new RefreshingToken(
      'test IdP',
      async () => {
        throw new Error('HTTP 401 (invalid_client)');
      },
      SHORT,
    );
    await assert.rejects(bad.token(), /HTTP 401/);
    const expired = new RefreshingToken(
      'token file /x',
      async () => ({ value: 'secret-token-value', issuedAtMs: 0, expiresAtMs: 1000 }),
      SHORT,
    );
    await assert.rejects(
      expired.token(),
      (e: Error) => /token file \/x: the token has expired/.test(e.message) && !e.message.includes('secret-token-value'),
    );
  });
});
