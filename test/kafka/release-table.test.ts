// The table of request versions per Kafka release is copied into the repository once
// (src/domain/kafka-api-versions-by-release.ts, read by the gateway and the simulator) by
// scripts/copy-release-table.ts. It must equal the shared kafka-protocol reference (../shared);
// with CI=true a missing reference fails instead of skipping.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { API_VERSIONS_BY_RELEASE, RELEASE_TABLE_SOURCE } from '../../src/domain/kafka-api-versions-by-release.js';
import { assertShared, skipWithoutShared } from '../shared-files.js';

const SHARED = '../shared/kafka-protocol/versions/api-versions-by-release.json';

test('the table covers the releases the gateway serves', () => {
  assert.ok(Object.keys(API_VERSIONS_BY_RELEASE).includes('zk-2.8') && Object.keys(API_VERSIONS_BY_RELEASE).includes('kraft-broker-4.2'));
});

test('the copy equals the shared reference', { skip: skipWithoutShared(SHARED, "Kafka's request versions per release") }, () => {
  assertShared(SHARED, "Kafka's request versions per release");
  const shared = JSON.parse(readFileSync(SHARED, 'utf8'));
  assert.equal(RELEASE_TABLE_SOURCE, shared.source);
  assert.deepEqual(JSON.parse(JSON.stringify(API_VERSIONS_BY_RELEASE)), shared.releases);
});
