// The reassignment settings' rule that ties leases to the Kafka request timeout (issue 28, L1:
// a 5 s lease with a 15 s request timeout let a wave land after a cancel).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LEASE_MARGIN_MS, loadReassignmentConfig } from '../../src/reconcile/config.js';

describe('PACING_LEASE_MS against KAFKA_REQUEST_TIMEOUT_MS', () => {
  it('refuses a lease shorter than the request timeout plus the margin, naming both and the least that works', () => {
    assert.throws(
      () => loadReassignmentConfig({ PACING_LEASE_MS: '5000', KAFKA_REQUEST_TIMEOUT_MS: '15000' }),
      (err: Error) =>
        /PACING_LEASE_MS \(5000\) must be at least KAFKA_REQUEST_TIMEOUT_MS \(15000\) \+ 5000 ms/.test(err.message) &&
        /raise PACING_LEASE_MS to 20000 or more/.test(err.message),
    );
    assert.throws(
      () => loadReassignmentConfig({ PACING_LEASE_MS: String(15_000 + LEASE_MARGIN_MS - 1), KAFKA_REQUEST_TIMEOUT_MS: '15000' }),
      /PACING_LEASE_MS/,
    );
    const ok = loadReassignmentConfig({ PACING_LEASE_MS: String(15_000 + LEASE_MARGIN_MS), KAFKA_REQUEST_TIMEOUT_MS: '15000' });
    assert.equal(ok.pacingLeaseMs, 20_000);
    assert.equal(ok.kafkaRequestTimeoutMs, 15_000);
  });

  it('defaults: the shortest safe lease for the request timeout', () => {
    const d = loadReassignmentConfig({});
    assert.equal(d.kafkaRequestTimeoutMs, 30_000);
    assert.equal(d.pacingLeaseMs, 30_000 + LEASE_MARGIN_MS);
    const long = loadReassignmentConfig({ KAFKA_REQUEST_TIMEOUT_MS: '120000' });
    assert.equal(long.pacingLeaseMs, 120_000 + LEASE_MARGIN_MS, 'the default follows a long request timeout');
  });
});
