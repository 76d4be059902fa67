// The quota admission as a service (src/services/quotas/mutation-admission.ts), without HTTP:
// a MutationCall in (caller, retry options, abort signal, metrics), a MutationOutcome out (one
// result per topic in request order, the RateLimit values). Gateway-side admission in strict
// mode over a Kafka layer double; the wire and the HTTP answers are test/http/quota's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createQuotaServices } from '../../../src/services/quotas/index.js';
import type { MutationCall, QuotaMetrics, RetryOptions, Sleep } from '../../../src/services/quotas/mutation-admission.js';
import { TopicService } from '../../../src/services/topics.js';
import { FakeKafka } from '../../http/fake-kafka.js';

const THROTTLING_QUOTA_EXCEEDED = 89;

function recordingMetrics() {
  const rejected: { api: string; source: string; items: number; throttleMs: number }[] = [];
  const resent: { api: string; items: number }[] = [];
  const metrics: QuotaMetrics = {
    rejected: (api, source, items, throttleMs) => void (items > 0 && rejected.push({ api, source, items, throttleMs })),
    resent: (api, items) => void resent.push({ api, items }),
    answered429: () => undefined,
  };
  return { metrics, rejected, resent };
}

/** One partition per second per caller, burst 1 (window 1 x 1 s); a clock the test moves (sleep moves it too). */
function setup() {
  const kafka = new FakeKafka();
  let now = 1_000_000;
  const slept: number[] = [];
  const sleep: Sleep = (ms) => {
    slept.push(ms);
    now += ms;
    return Promise.resolve();
  };
  const quota = createQuotaServices(kafka, {
    config: { admission: { rate: 1, window: { windowNum: 1, windowSizeSeconds: 1 } } },
    now: () => now,
    sleep,
  });
  const topics = new TopicService(kafka, quota.mutations);
  const { metrics, rejected, resent } = recordingMetrics();
  const call = (retry: RetryOptions, principal = 'alice', signal = new AbortController().signal): MutationCall => ({
    principal,
    retry,
    signal,
    metrics,
  });
  return { kafka, topics, call, rejected, resent, slept };
}

const NO_RETRY: RetryOptions = { enabled: false, timeoutMs: 30_000 };
const newTopics = (...names: string[]) => names.map((name) => ({ name, partitions: 1, replicationFactor: 1 }));

describe('MutationAdmission (gateway-side, strict)', () => {
  it('admits while the bucket is not negative, refuses the rest with 89 and a throttle, and says so in the outcome', async () => {
    const { kafka, topics, call, rejected } = setup();
    const outcome = await topics.create(call(NO_RETRY), newTopics('a', 'b', 'c'), false);
    assert.deepEqual(
      outcome.results.map((r) => [r.name, r.ok]),
      [
        ['a', true],
        ['b', true],
        ['c', false],
      ],
    );
    const refused = outcome.results[2];
    assert.ok(!refused.ok);
    assert.equal(refused.error.code, THROTTLING_QUOTA_EXCEEDED);
    assert.ok((refused.error.throttleTimeMs ?? 0) > 0, JSON.stringify(refused.error));
    // Kafka was asked only for what was admitted.
    assert.deepEqual([...kafka.topics.keys()].sort(), ['a', 'b']);
    // Counted once, as the gateway's refusal, with the throttle the topic was answered.
    assert.deepEqual(rejected, [{ api: 'CreateTopics', source: 'gateway', items: 1, throttleMs: refused.error.throttleTimeMs }]);
    assert.match(outcome.rateLimit.policy ?? '', /^"gateway";q=1;w=1$/);
    assert.match(outcome.rateLimit.limit ?? '', /^"gateway";r=/);
  });

  it('buckets are per caller: another principal is not charged for the first one', async () => {
    const { topics, call } = setup();
    await topics.create(call(NO_RETRY, 'alice'), newTopics('a', 'b', 'c'), false);
    const bob = await topics.create(call(NO_RETRY, 'bob'), newTopics('d'), false);
    assert.deepEqual(
      bob.results.map((r) => r.ok),
      [true],
    );
  });

  it('with retryOnQuotaViolation, waits the throttle and re-sends only the refused topics', async () => {
    const { kafka, topics, call, resent, slept } = setup();
    const outcome = await topics.create(call({ enabled: true, timeoutMs: 30_000 }), newTopics('a', 'b', 'c'), false);
    assert.deepEqual(
      outcome.results.map((r) => [r.name, r.ok]),
      [
        ['a', true],
        ['b', true],
        ['c', true],
      ],
    );
    assert.deepEqual([...kafka.topics.keys()].sort(), ['a', 'b', 'c']);
    assert.deepEqual(resent, [{ api: 'CreateTopics', items: 1 }]);
    assert.equal(slept.length, 1);
    assert.ok(slept[0] > 0);
  });

  it('does not wait when the caller is gone (aborted signal), nor past timeoutMs', async () => {
    const gone = setup();
    const aborted = new AbortController();
    aborted.abort();
    const a = await gone.topics.create(
      gone.call({ enabled: true, timeoutMs: 30_000 }, 'alice', aborted.signal),
      newTopics('a', 'b', 'c'),
      false,
    );
    assert.equal(a.results[2].ok, false);
    assert.deepEqual(gone.slept, []);

    const hurried = setup();
    const b = await hurried.topics.create(hurried.call({ enabled: true, timeoutMs: 0 }), newTopics('a', 'b', 'c'), false);
    assert.equal(b.results[2].ok, false);
    assert.deepEqual(hurried.slept, []);
  });
});
