// Pins the Kafka-error-to-HTTP table, row by row, and checks that the table documented
// in openapi.yaml says exactly what src/http/errors.ts does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KafkaRequestError } from '../../src/kafka/errors.js';
import {
  KAFKA_ERROR_STATUS,
  UNAVAILABLE_RETRY_AFTER_SECONDS,
  mapKafkaError,
  mapKafkaRequestError,
  statusForKafkaCode,
} from '../../src/http/errors.js';
import { retryAfterSeconds } from '../../src/domain/retry-after.js';
import { loadSpec } from '../../src/http/spec.js';
import { kafkaError } from './fake-kafka.js';

const EXPECTED: [name: string, code: number, status: number][] = [
  ['UNKNOWN_TOPIC_OR_PARTITION', 3, 404],
  ['REQUEST_TIMED_OUT', 7, 503],
  ['INVALID_TOPIC_EXCEPTION', 17, 422],
  ['TOPIC_AUTHORIZATION_FAILED', 29, 403],
  ['CLUSTER_AUTHORIZATION_FAILED', 31, 403],
  ['TOPIC_ALREADY_EXISTS', 36, 409],
  ['INVALID_PARTITIONS', 37, 422],
  ['INVALID_REPLICATION_FACTOR', 38, 422],
  ['INVALID_REPLICA_ASSIGNMENT', 39, 422],
  ['INVALID_CONFIG', 40, 422],
  ['NOT_CONTROLLER', 41, 503],
  ['INVALID_REQUEST', 42, 422],
  ['POLICY_VIOLATION', 44, 422],
  ['KAFKA_STORAGE_ERROR', 56, 503],
  ['REASSIGNMENT_IN_PROGRESS', 60, 409],
  ['TOPIC_DELETION_DISABLED', 73, 403],
  ['THROTTLING_QUOTA_EXCEEDED', 89, 429],
];

describe('Kafka error -> HTTP status table', () => {
  for (const [name, code, status] of EXPECTED) {
    it(`${name} (${code}) -> ${status}`, () => {
      assert.equal(statusForKafkaCode(code), status);
      const { problem, headers } = mapKafkaError(
        kafkaError(name, code, 'broker says no', code === 89 ? 2500 : undefined),
        'kafka',
        '/topics/x',
      );
      assert.equal(problem.status, status);
      assert.deepEqual(problem.kafkaError, { name, code });
      assert.equal(problem.type, `https://kafka-admin-gateway.dev/problems/${name.toLowerCase().replaceAll('_', '-')}`);
      assert.equal(problem.detail, 'broker says no');
      assert.equal(problem.instance, '/topics/x');
      assert.ok(problem.title.length > 0);
      if (status === 429 || status === 503) assert.ok(Number(headers?.['Retry-After']) >= 1, 'Retry-After on 429/503');
      else assert.equal(headers, undefined);
    });
  }

  it('has no row the test does not pin', () => {
    assert.deepEqual(
      [...KAFKA_ERROR_STATUS.keys()].sort((a, b) => a - b),
      EXPECTED.map(([, c]) => c).sort((a, b) => a - b),
    );
  });

  for (const [name, code] of [
    ['UNKNOWN_SERVER_ERROR', -1],
    ['BROKER_NOT_AVAILABLE', 8],
    ['NO_REASSIGNMENT_IN_PROGRESS', 85],
    ['SOMETHING_NEW', 9999],
  ] as const) {
    it(`any other Kafka error (${name} ${code}) -> 502`, () => {
      const { problem, headers } = mapKafkaError(kafkaError(name, code));
      assert.equal(problem.status, 502);
      assert.deepEqual(problem.kafkaError, { name, code });
      assert.equal(headers, undefined);
    });
  }

  it('89 -> 429 with Retry-After = ceil(throttle/1000) and throttleTimeMs in the body', () => {
    const m = mapKafkaError(kafkaError('THROTTLING_QUOTA_EXCEEDED', 89, '', 2001));
    assert.equal(m.problem.status, 429);
    assert.equal(m.problem.throttleTimeMs, 2001);
    assert.equal(m.headers?.['Retry-After'], '3');
    assert.equal(m.retryAfter, 3);
  });

  it('Retry-After is never below 1 second', () => {
    assert.equal(retryAfterSeconds(0), 1);
    assert.equal(retryAfterSeconds(1), 1);
    assert.equal(retryAfterSeconds(999), 1);
    assert.equal(retryAfterSeconds(1000), 1);
    assert.equal(retryAfterSeconds(1001), 2);
    assert.equal(retryAfterSeconds(undefined), 1);
    assert.equal(retryAfterSeconds(-5), 1);
    const m = mapKafkaError(kafkaError('THROTTLING_QUOTA_EXCEEDED', 89, '', 0));
    assert.equal(m.headers?.['Retry-After'], '1');
    assert.equal(m.problem.throttleTimeMs, 0);
  });

  it('89 without throttle time still answers 429 with Retry-After 1 and no throttleTimeMs', () => {
    const m = mapKafkaError(kafkaError('THROTTLING_QUOTA_EXCEEDED', 89));
    assert.equal(m.problem.status, 429);
    assert.equal(m.headers?.['Retry-After'], '1');
    assert.equal('throttleTimeMs' in m.problem, false);
  });

  for (const kind of ['unavailable', 'timeout'] as const) {
    it(`kind '${kind}' -> 503 with Retry-After, whatever the code`, () => {
      const err = new KafkaRequestError(kind, kafkaError('NETWORK_EXCEPTION', 13, 'connection refused'));
      const m = mapKafkaRequestError(err, '/cluster');
      assert.equal(m.problem.status, 503);
      assert.equal(m.problem.type, `https://kafka-admin-gateway.dev/problems/kafka-${kind}`);
      assert.deepEqual(m.problem.kafkaError, { name: 'NETWORK_EXCEPTION', code: 13 });
      assert.equal(m.headers?.['Retry-After'], String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      // Even a code that maps to a 4xx: the retry budget ran out, the client may retry later.
      assert.equal(mapKafkaRequestError(new KafkaRequestError(kind, kafkaError('UNKNOWN_TOPIC_OR_PARTITION', 3))).problem.status, 503);
    });
  }

  it('89 stays 429 even when reported as unavailable (the throttle is the better advice)', () => {
    const m = mapKafkaRequestError(new KafkaRequestError('unavailable', kafkaError('THROTTLING_QUOTA_EXCEEDED', 89, '', 4200)));
    assert.equal(m.problem.status, 429);
    assert.equal(m.headers?.['Retry-After'], '5');
  });

  it('omits detail when Kafka sent no message', () => {
    assert.equal('detail' in mapKafkaError(kafkaError('TOPIC_ALREADY_EXISTS', 36, '')).problem, false);
  });

  it('openapi.yaml documents the same table', () => {
    const description = String((loadSpec().document.info as { description: string }).description);
    const documented = new Map<number, number>();
    for (const line of description.split('\n')) {
      const cells = line.split('|').map((c) => c.trim());
      // | NAME[, NAME...] | code[, code...] | status | why |
      if (cells.length < 5 || !/^\d{3}$/.test(cells[3])) continue;
      for (const code of cells[2].split(',').map((c) => c.trim())) if (/^-?\d+$/.test(code)) documented.set(Number(code), Number(cells[3]));
    }
    assert.deepEqual(
      [...documented.entries()].sort((a, b) => a[0] - b[0]),
      [...KAFKA_ERROR_STATUS.entries()].map(([code, rule]) => [code, rule.status]).sort((a, b) => a[0] - b[0]),
    );
  });
});
