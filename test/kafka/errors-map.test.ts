import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AuthenticationError,
  MultipleErrors,
  NetworkError,
  ProtocolError,
  ResponseError,
  TimeoutError,
  UserError,
} from '@platformatic/kafka';
import { KafkaRequestError } from '../../src/kafka/errors.js';
import { isRetriable, kafkaErrorInfo, toKafkaRequestError } from '../../src/kafka/errors-map.js';

test('kafkaErrorInfo: name by code, broker message wins, standard description otherwise', () => {
  assert.deepEqual(kafkaErrorInfo(36, 'Topic a already exists.'), {
    code: 36,
    name: 'TOPIC_ALREADY_EXISTS',
    message: 'Topic a already exists.',
  });
  const std = kafkaErrorInfo(37, null);
  assert.equal(std.name, 'INVALID_PARTITIONS');
  assert.match(std.message, /partitions/i);
  assert.equal(kafkaErrorInfo(-1).name, 'UNKNOWN_SERVER_ERROR');
  assert.equal(kafkaErrorInfo(89, '', 1500).throttleTimeMs, 1500);
  assert.equal(kafkaErrorInfo(17).name, 'INVALID_TOPIC_EXCEPTION');
  assert.equal(kafkaErrorInfo(9999).name, 'UNKNOWN_ERROR_CODE_9999');
});

test('ProtocolError inside ResponseError inside MultipleErrors → kind kafka with server message', () => {
  const resp = new ResponseError(
    19,
    7,
    { '/topics/0': [40, 'Invalid value x for configuration cleanup.policy'] },
    { throttleTimeMs: 0, topics: [] },
  );
  const wrapped = new MultipleErrors('createTopics failed 2 times.', [resp]);
  for (const err of [resp, wrapped]) {
    const e = toKafkaRequestError(err);
    assert.ok(e instanceof KafkaRequestError);
    assert.equal(e.kind, 'kafka');
    assert.equal(e.kafka.code, 40);
    assert.equal(e.kafka.name, 'INVALID_CONFIG');
    assert.equal(e.kafka.message, 'Invalid value x for configuration cleanup.policy');
    assert.equal(e.kafka.throttleTimeMs, undefined);
    assert.equal(e.cause, err);
  }
});

test('error 89 keeps throttle_time_ms and is never retriable', () => {
  const resp = new ResponseError(37, 3, { '/results/0': [89, null] }, { throttleTimeMs: 2500, results: [] });
  const e = toKafkaRequestError(new MultipleErrors('x', [resp]));
  assert.equal(e.kind, 'kafka');
  assert.equal(e.kafka.name, 'THROTTLING_QUOTA_EXCEEDED');
  assert.equal(e.kafka.throttleTimeMs, 2500);
  assert.match(e.kafka.message, /quota/i); // Kafka's description, no server message
  assert.equal(isRetriable(resp), false);
  assert.equal(isRetriable(new ProtocolError(89)), false);
});

test('a bare ProtocolError', () => {
  const e = toKafkaRequestError(new ProtocolError('UNKNOWN_TOPIC_OR_PARTITION'));
  assert.equal(e.kind, 'kafka');
  assert.equal(e.kafka.code, 3);
});

test('retriable classification', () => {
  assert.equal(isRetriable(new ProtocolError(41)), true);
  assert.equal(isRetriable(new ProtocolError(7)), true);
  assert.equal(isRetriable(new ProtocolError(5)), true);
  assert.equal(isRetriable(new ProtocolError(36)), false);
  // all leaves must be retriable
  assert.equal(isRetriable(new MultipleErrors('m', [new ProtocolError(41), new ProtocolError(36)])), false);
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
  const cannot = new MultipleErrors('Cannot connect to any broker.', [
    new NetworkError('Connection to 127.0.0.1:1 failed.', { cause: refused }),
  ]);
  assert.equal(isRetriable(cannot), true);
  assert.equal(isRetriable(new NetworkError('Connection closed')), true);
  assert.equal(isRetriable(new TimeoutError('Request timed out')), false);
  assert.equal(isRetriable(new TimeoutError('Connection to 10.0.0.1:9092 timed out.')), true);
  assert.equal(isRetriable(new AuthenticationError('SASL authentication failed.')), false);
  assert.equal(isRetriable(new UserError('bad option')), false);
  assert.equal(isRetriable(new KafkaRequestError('kafka', kafkaErrorInfo(41))), true);
  assert.equal(isRetriable(new KafkaRequestError('kafka', kafkaErrorInfo(89))), false);
});

test('connection refused / lost → unavailable; exhausted retriable broker error → unavailable', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
  const cannot = new MultipleErrors('Cannot connect to any broker.', [
    new NetworkError('Connection to 127.0.0.1:1 failed.', { cause: refused }),
  ]);
  const e = toKafkaRequestError(cannot);
  assert.equal(e.kind, 'unavailable');
  assert.equal(e.kafka.name, 'NETWORK_EXCEPTION');
  assert.match(e.kafka.message, /Cannot connect to any broker/);
  assert.match(e.kafka.message, /ECONNREFUSED/);

  assert.equal(toKafkaRequestError(new NetworkError('Connection closed')).kind, 'unavailable');
  assert.equal(toKafkaRequestError(new TimeoutError('Connection to h:1 timed out.')).kind, 'unavailable');

  const nc = toKafkaRequestError(new ProtocolError(41), { exhausted: true });
  assert.equal(nc.kind, 'unavailable');
  assert.equal(nc.kafka.name, 'NOT_CONTROLLER');
  // a non-retriable code stays 'kafka' even when flagged exhausted
  assert.equal(toKafkaRequestError(new ProtocolError(36), { exhausted: true }).kind, 'kafka');
  // an existing KafkaRequestError is upgraded, items kept
  const items = [{ ok: true as const, name: 'a', value: null }];
  const up = toKafkaRequestError(new KafkaRequestError('kafka', kafkaErrorInfo(41), { items }), { exhausted: true });
  assert.equal(up.kind, 'unavailable');
  assert.deepEqual(up.items, items);
});

test('request timeout → timeout; SASL failure → unavailable 58; anything else → kafka -1', () => {
  const t = toKafkaRequestError(new MultipleErrors('m', [new TimeoutError('Request timed out')]), { api: 'CreateTopics' });
  assert.equal(t.kind, 'timeout');
  assert.equal(t.kafka.code, 7);
  assert.match(t.kafka.message, /CreateTopics/);

  const a = toKafkaRequestError(
    new NetworkError('Connection to h:1 failed.', { cause: new AuthenticationError('SASL authentication failed.') }),
  );
  // how Connection reports a SASL failure: NetworkError whose cause is the AuthenticationError
  assert.equal(a.kind, 'unavailable');
  assert.equal(a.kafka.name, 'SASL_AUTHENTICATION_FAILED');
  assert.equal(
    isRetriable(
      new MultipleErrors('Cannot connect to any broker.', [
        new NetworkError('x', { cause: new AuthenticationError('SASL authentication failed.') }),
      ]),
    ),
    false,
  );

  const a2 = toKafkaRequestError(new AuthenticationError('SASL authentication failed.'));
  assert.equal(a2.kind, 'unavailable');
  assert.equal(a2.kafka.name, 'SASL_AUTHENTICATION_FAILED');

  const x = toKafkaRequestError(new Error('boom'));
  assert.equal(x.kind, 'kafka');
  assert.equal(x.kafka.code, -1);
  assert.equal(x.kafka.message, 'boom');
  assert.equal(toKafkaRequestError('str').kafka.message, 'str');
});
