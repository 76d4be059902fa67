// The committed schemas must be exactly what scripts/gen-protocol.ts derives from
// Kafka's own message specs (../shared/kafka-protocol/messages, or KAFKA_MESSAGES_DIR).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { generate, OUTPUT, DEFAULT_MESSAGES_DIR } from '../../../scripts/gen-protocol.js';
import { assertShared, skipWithoutShared } from '../../shared-files.js';

const dir = process.env.KAFKA_MESSAGES_DIR ?? DEFAULT_MESSAGES_DIR;

test("protocol schemas match Kafka's message specs", { skip: skipWithoutShared(dir, "Kafka's message specs") }, () => {
  assertShared(dir, "Kafka's message specs");
  assert.equal(readFileSync(OUTPUT, 'utf8'), generate(dir), 'run npm run gen:protocol');
});
