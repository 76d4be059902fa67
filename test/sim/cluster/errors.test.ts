import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode, KafkaError, errorName } from '../../../src/sim/cluster/errors.js';

test('ErrorCode has the codes Kafka uses', () => {
  assert.equal(ErrorCode.NONE, 0);
  assert.equal(ErrorCode.UNKNOWN_SERVER_ERROR, -1);
  assert.equal(ErrorCode.INVALID_TOPIC_EXCEPTION, 17);
  assert.equal(ErrorCode.TOPIC_ALREADY_EXISTS, 36);
  assert.equal(ErrorCode.INVALID_REPLICA_ASSIGNMENT, 39);
  assert.equal(ErrorCode.KAFKA_STORAGE_ERROR, 56);
  assert.equal(ErrorCode.SASL_AUTHENTICATION_FAILED, 58);
  assert.equal(ErrorCode.THROTTLING_QUOTA_EXCEEDED, 89);
  assert.equal(ErrorCode.UNKNOWN_TOPIC_ID, 100);
});

test('errorName is the reverse lookup', () => {
  for (const [name, code] of Object.entries(ErrorCode)) assert.equal(errorName(code), name);
  assert.equal(errorName(12345), 'UNKNOWN_12345');
});

test('KafkaError carries code and message, with Kafka default messages', () => {
  const e = new KafkaError(36, "Topic 'x' already exists.");
  assert.ok(e instanceof Error);
  assert.equal(e.code, 36);
  assert.equal(e.message, "Topic 'x' already exists.");
  assert.equal(e.errorName, 'TOPIC_ALREADY_EXISTS');
  assert.equal(new KafkaError(3).message, 'This server does not host this topic-partition.');
  assert.equal(new KafkaError(100).message, 'This server does not host this topic ID.');
});
