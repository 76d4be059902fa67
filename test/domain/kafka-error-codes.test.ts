// The one table of Kafka's error codes (src/domain/kafka-error-codes.ts), read by the gateway, the
// domain and the simulator alike, checked against Kafka's own material so that a wrong row cannot hide on both
// sides of a test: the errors Kafka's message specs name, the (code, name) pairs of Kafka's
// controller vectors (../shared), and the copy of Errors.java that @platformatic/kafka ships.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { protocolErrors } from '@platformatic/kafka';
import { ERROR_CODES, KAFKA_ERROR_TABLE, kafkaErrorCode, type KafkaErrorName } from '../../src/domain/kafka-error-codes.js';
import { ERROR_CODES as GATEWAY_CODES, kafkaErrorDescription, kafkaErrorName, RETRIABLE_CODES } from '../../src/kafka/errors-map.js';
import { ErrorCode as SIM_CODES, errorName as simErrorName } from '../../src/sim/cluster/errors.js';
import { ELECTION_CODES } from '../../src/domain/leaders.js';
import { KAFKA_ERROR_STATUS } from '../../src/http/errors.js';
import { assertShared, skipWithoutShared } from '../shared-files.js';

const here = dirname(fileURLToPath(import.meta.url));
const SHARED =
  [resolve(here, '../../../shared/kafka-protocol'), resolve(here, '../../../../shared/kafka-protocol')].find((p) => existsSync(p)) ??
  resolve(here, '../../../shared/kafka-protocol');
const MESSAGES = process.env.KAFKA_MESSAGES_DIR ?? resolve(SHARED, 'messages');
const VECTORS = process.env.KAFKA_CONTROLLER_VECTORS ?? resolve(SHARED, 'vectors/controller-reassignments.json');

/** Upper-case words of the specs' comments that are not error names. */
const NOT_ERRORS = new Set([
  'NOTICE',
  'LICENSE',
  'BASIS',
  'WITHOUT',
  'WARRANTIES',
  'CONDITIONS',
  'SCRAM',
  'KAFKA',
  'BOOLEAN',
  'STRING',
  'SHORT',
  'DOUBLE',
  'CLASS',
  'PASSWORD',
  'READ_UNCOMMITTED',
  'READ_COMMITTED',
  'COMMITTED',
  'ABORTED',
  'COMPACT_STRING',
  'SASL_AUTHENTICATE',
  'DEPRECATED',
  'ABORT',
  'COMMIT',
]);
/**
 * Named in ConsumerGroupHeartbeatResponse.json's comment (KIP-848's draft), shipped in Errors.java
 * as INVALID_REGULAR_EXPRESSION (128), past this table's end: a consumer-group error neither the
 * gateway nor the simulator meets.
 */
const NAMED_IN_SPECS_ONLY = new Set(['INVALID_SUBSCRIPTION_REGEX']);

const rows = Object.entries(KAFKA_ERROR_TABLE) as [KafkaErrorName, readonly [number, boolean, string | null]][];

test('codes and names are unique, and each row is found by its code', () => {
  assert.equal(new Set(rows.map(([, [code]]) => code)).size, rows.length);
  for (const [name, [code, retriable, message]] of rows) {
    assert.deepEqual(kafkaErrorCode(code), { code, name, retriable, message });
    assert.equal(ERROR_CODES[name], code);
  }
  assert.equal(kafkaErrorCode(12345), undefined);
});

/** Rows from Kafka 4.0's Errors.java, past the copy @platformatic/kafka ships (cited in the table's header). */
const KAFKA_4_0_ROWS = new Set<KafkaErrorName>(['INVALID_REGULAR_EXPRESSION', 'REBOOTSTRAP_REQUIRED']);

test('the table is Errors.java as @platformatic/kafka ships it: every code, name, message and retriable flag; then 4.0 rows', () => {
  const shipped = Object.values(protocolErrors);
  assert.equal(rows.length, shipped.length + KAFKA_4_0_ROWS.size);
  const highestShipped = Math.max(...shipped.map((e) => e.code));
  for (const name of KAFKA_4_0_ROWS) assert.ok(ERROR_CODES[name] > highestShipped, `${name} is past the shipped copy`);
  for (const e of shipped) {
    const row = kafkaErrorCode(e.code);
    assert.ok(row, `${e.id} (${e.code}) is missing`);
    assert.equal(row.name, e.id);
    assert.equal(row.retriable, e.canRetry, e.id);
    assert.equal(row.message ?? '', e.message, e.id);
  }
});

test("every error Kafka's message specs name is in the table", { skip: skipWithoutShared(MESSAGES, "Kafka's message specs") }, () => {
  assertShared(MESSAGES, "Kafka's message specs");
  const named = new Set<string>();
  for (const file of readdirSync(MESSAGES).filter((f) => f.endsWith('.json'))) {
    for (const line of readFileSync(resolve(MESSAGES, file), 'utf8').split('\n')) {
      const comment = line.indexOf('//');
      if (comment < 0) continue;
      for (const m of line.slice(comment).matchAll(/\b[A-Z][A-Z0-9_]{4,}\b/g)) if (!NOT_ERRORS.has(m[0])) named.add(m[0]);
    }
  }
  assert.ok(named.has('THROTTLING_QUOTA_EXCEEDED') && named.size > 30, `only ${named.size} names read from the specs`);
  const missing = [...named].filter((n) => !(n in KAFKA_ERROR_TABLE) && !NAMED_IN_SPECS_ONLY.has(n));
  assert.deepEqual(missing, []);
});

test(
  "every (code, name) of Kafka's controller vectors is a row of the table",
  { skip: skipWithoutShared(VECTORS, "Kafka's controller vectors") },
  () => {
    assertShared(VECTORS, "Kafka's controller vectors");
    const text = readFileSync(VECTORS, 'utf8');
    const pairs = new Set([...text.matchAll(/"errorCode"\s*:\s*(-?\d+),\s*"error"\s*:\s*"([A-Z_]+)"/g)].map((m) => `${m[1]} ${m[2]}`));
    assert.ok(pairs.size >= 4, `only ${pairs.size} (code, name) pairs read from the vectors`);
    for (const pair of pairs) {
      const [code, name] = pair.split(' ');
      assert.equal(kafkaErrorCode(Number(code))?.name, name, pair);
    }
  },
);

test('the gateway, the simulator, the domain and the HTTP table agree with it', () => {
  assert.equal(GATEWAY_CODES, ERROR_CODES);
  assert.equal(SIM_CODES, ERROR_CODES);
  for (const [name, [code, , message]] of rows) {
    assert.equal(kafkaErrorName(code), name);
    assert.equal(simErrorName(code), name);
    assert.equal(kafkaErrorDescription(code), message ?? '');
  }
  assert.equal(kafkaErrorName(12345), 'UNKNOWN_ERROR_CODE_12345');
  assert.equal(kafkaErrorDescription(12345), 'Kafka error code 12345.');
  // The domain's own lists of the codes it answers with.
  for (const [name, code] of Object.entries(ELECTION_CODES)) assert.equal(kafkaErrorCode(code)?.name, name);
  // Each row of the HTTP status table names its code.
  for (const [code, rule] of KAFKA_ERROR_STATUS)
    assert.equal(rule.why.split(/[: ]/)[0], kafkaErrorCode(code)?.name, `${code}: ${rule.why}`);
  // What the gateway re-sends itself is retriable for Kafka too (89 is, but goes to the caller).
  for (const code of RETRIABLE_CODES) assert.equal(kafkaErrorCode(code)?.retriable, true, kafkaErrorName(code));
  assert.equal(RETRIABLE_CODES.has(ERROR_CODES.THROTTLING_QUOTA_EXCEEDED), false);
});
