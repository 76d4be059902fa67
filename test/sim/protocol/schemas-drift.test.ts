// The committed schemas must be exactly what scripts/gen-protocol.ts derives from
// Kafka's own message specs (../shared/kafka-protocol/messages, or KAFKA_MESSAGES_DIR).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { generate, OUTPUT, DEFAULT_MESSAGES_DIR } from '../../../scripts/gen-protocol.js';

const dir = process.env.KAFKA_MESSAGES_DIR ?? DEFAULT_MESSAGES_DIR;

test('protocol schemas match Kafka\'s message specs', { skip: existsSync(dir) ? false : `no specs at ${dir}` }, () => {
  assert.equal(readFileSync(OUTPUT, 'utf8'), generate(dir), 'run npm run gen:protocol');
});
