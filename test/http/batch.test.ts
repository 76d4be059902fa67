// Multi-status aggregation: one HTTP status for a per-topic answer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aggregateItems, failedItem, type ItemAnswer } from '../../src/http/batch.js';
import { mapKafkaError } from '../../src/http/errors.js';
import { kafkaError } from './fake-kafka.js';

const ok = (name: string, status: 200 | 201 = 201): ItemAnswer => ({
  result: { name, status, topic: { name, topicId: null, partitions: 1, replicationFactor: 1 } },
});
const fail = (name: string, errName: string, code: number, throttle?: number): ItemAnswer =>
  failedItem(name, mapKafkaError(kafkaError(errName, code, `${name} failed`, throttle)));

describe('multi-status aggregation', () => {
  it('all created -> 201 with items', () => {
    const a = aggregateItems([ok('a'), ok('b')], 201);
    assert.equal(a.status, 201);
    assert.equal(a.kind, 'batch');
    assert.deepEqual(
      a.body.items?.map((i) => i.name),
      ['a', 'b'],
    );
  });

  it('all validated (validateOnly) -> 200', () => {
    assert.equal(aggregateItems([ok('a', 200), ok('b', 200)], 200).status, 200);
  });

  it('success mixed with failure -> 207, items keep their own status and problem, in order', () => {
    const a = aggregateItems([ok('a'), fail('b', 'TOPIC_ALREADY_EXISTS', 36)], 201, '/topics');
    assert.equal(a.status, 207);
    assert.equal(a.kind, 'batch');
    const [first, second] = a.body.items;
    assert.equal(first.status, 201);
    assert.equal(second.status, 409);
    assert.ok(second && 'problem' in second && second.problem.kafkaError?.code === 36);
    assert.ok(second && 'problem' in second && second.problem.instance === undefined, 'items carry no instance of their own');
  });

  it('failures with different statuses -> 207', () => {
    const a = aggregateItems([fail('a', 'TOPIC_ALREADY_EXISTS', 36), fail('b', 'INVALID_PARTITIONS', 37)], 201);
    assert.equal(a.status, 207);
    assert.equal(a.kind, 'batch');
  });

  it('all fail with the same Kafka error -> that status, problem typed as that error, items attached', () => {
    const a = aggregateItems([fail('a', 'TOPIC_ALREADY_EXISTS', 36), fail('b', 'TOPIC_ALREADY_EXISTS', 36)], 201, '/topics');
    assert.equal(a.status, 409);
    assert.equal(a.kind, 'problem');
    if (a.kind !== 'problem') return;
    assert.equal(a.body.type, 'https://kafka-admin-gateway.dev/problems/topic-already-exists');
    assert.deepEqual(a.body.kafkaError, { name: 'TOPIC_ALREADY_EXISTS', code: 36 });
    assert.equal(a.body.instance, '/topics');
    assert.equal(a.body.items?.length, 2);
    assert.equal(a.headers, undefined);
  });

  it('all fail with the same status but different Kafka errors -> that status, batch-failed, no kafkaError', () => {
    const a = aggregateItems([fail('a', 'INVALID_PARTITIONS', 37), fail('b', 'INVALID_CONFIG', 40)], 201);
    assert.equal(a.status, 422);
    assert.equal(a.kind, 'problem');
    if (a.kind !== 'problem') return;
    assert.equal(a.body.type, 'https://kafka-admin-gateway.dev/problems/batch-failed');
    assert.equal(a.body.kafkaError, undefined);
  });

  it('all throttled -> 429, Retry-After and throttleTimeMs are the maximum over the items', () => {
    const a = aggregateItems(
      [
        fail('a', 'THROTTLING_QUOTA_EXCEEDED', 89, 1200),
        fail('b', 'THROTTLING_QUOTA_EXCEEDED', 89, 7300),
        fail('c', 'THROTTLING_QUOTA_EXCEEDED', 89, 10),
      ],
      201,
    );
    assert.equal(a.status, 429);
    assert.equal(a.kind, 'problem');
    if (a.kind !== 'problem') return;
    assert.equal(a.headers?.['Retry-After'], '8');
    assert.equal(a.body.throttleTimeMs, 7300);
  });

  it('some throttled, some created -> 207 (no top-level Retry-After; each item has throttleTimeMs)', () => {
    const a = aggregateItems([ok('a'), fail('b', 'THROTTLING_QUOTA_EXCEEDED', 89, 1500)], 201);
    assert.equal(a.status, 207);
    assert.equal(a.kind, 'batch');
    const b = a.body.items[1];
    assert.ok('problem' in b && b.problem.throttleTimeMs === 1500);
  });

  it('a single failing item behaves like a uniform failure', () => {
    const a = aggregateItems([fail('a', 'POLICY_VIOLATION', 44)], 201);
    assert.equal(a.status, 422);
    assert.equal(a.kind, 'problem');
  });
});
