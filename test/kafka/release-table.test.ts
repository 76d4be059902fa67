// The table of request versions per Kafka release is copied into the repository twice (the
// gateway's and the simulator's: the simulator imports nothing of the gateway's code) by
// scripts/copy-release-table.ts. Both copies must equal each other and, when the shared
// kafka-protocol reference is there (../shared), its api-versions-by-release.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { API_VERSIONS_BY_RELEASE as GATEWAY, RELEASE_TABLE_SOURCE } from '../../src/kafka/releases/api-versions-by-release.js';
import { API_VERSIONS_BY_RELEASE as SIM } from '../../src/sim/releases/api-versions-by-release.js';

const SHARED = '../shared/kafka-protocol/versions/api-versions-by-release.json';

test("the gateway's and the simulator's copies are the same table", () => {
  assert.deepEqual(GATEWAY, SIM);
  assert.ok(Object.keys(GATEWAY).includes('zk-2.8') && Object.keys(GATEWAY).includes('kraft-broker-4.2'));
});

test('the copies equal the shared reference, when it is present', (t) => {
  if (!existsSync(SHARED)) return t.skip(`${SHARED} is not here`);
  const shared = JSON.parse(readFileSync(SHARED, 'utf8'));
  assert.equal(RELEASE_TABLE_SOURCE, shared.source);
  assert.deepEqual(JSON.parse(JSON.stringify(GATEWAY)), shared.releases);
});
