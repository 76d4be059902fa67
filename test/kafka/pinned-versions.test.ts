// The gateway sends every Kafka request at a version it chose (src/kafka/admin.ts says why).
// It does so by calling @platformatic/kafka's per-version API modules, so the version sent is
// whatever the module it imports is bound to. That binding moved once already: in 1.x the
// module named describeClientQuotasV0 sent v1; in 2.x it sends v0. This test reads which
// modules src/ imports and checks each against the (API key, version) the gateway and the
// simulator are built for, so a client upgrade cannot silently change a version on the wire.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as kafka from '@platformatic/kafka';

/** API module → [Kafka API key, version the gateway sends]. */
const PINNED: Record<string, [number, number]> = {
  produceV11: [0, 11],
  fetchV17: [1, 17],
  listOffsetsV9: [2, 9],
  metadataV12: [3, 12],
  createTopicsV7: [19, 7],
  deleteTopicsV6: [20, 6],
  describeConfigsV4: [32, 4],
  alterReplicaLogDirsV2: [34, 2],
  describeLogDirsV4: [35, 4],
  createPartitionsV3: [37, 3],
  incrementalAlterConfigsV1: [44, 1],
  alterPartitionReassignmentsV0: [45, 0],
  listPartitionReassignmentsV0: [46, 0],
  describeClientQuotasV1: [48, 1],
  alterClientQuotasV1: [49, 1],
  describeClusterV1: [60, 1],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Names of per-version API modules (`somethingV<N>`) imported from the client anywhere in src/. */
function importedApiModules(): Set<string> {
  const found = new Set<string>();
  const importRe = /import\s*\{([^}]*)\}\s*from\s*'@platformatic\/kafka'/g;
  for (const file of sourceFiles('src')) {
    for (const m of readFileSync(file, 'utf8').matchAll(importRe)) {
      for (const raw of m[1]!.split(',')) {
        const name = raw.replace(/^\s*type\s+/, '').split(/\s+as\s+/)[0]!.trim();
        if (/^[a-z][A-Za-z]*V\d+$/.test(name)) found.add(name);
      }
    }
  }
  return found;
}

test('every per-version API module src/ imports is pinned here', () => {
  const imported = importedApiModules();
  assert.ok(imported.size >= 10, `expected the gateway's API modules, found ${[...imported].join(', ')}`);
  const unpinned = [...imported].filter((n) => !(n in PINNED));
  assert.deepEqual(unpinned, [], 'add these to PINNED with the key and version the gateway means to send');
});

test('each pinned module sends the API key and version the gateway is built for', () => {
  const exports = kafka as unknown as Record<string, { api?: { key?: number; version?: number } } | undefined>;
  for (const [name, [key, version]] of Object.entries(PINNED)) {
    const api = exports[name]?.api;
    assert.ok(api, `${name} is not exported by @platformatic/kafka`);
    assert.deepEqual([api.key, api.version], [key, version], `${name} sends key ${api.key} v${api.version}`);
    assert.equal(Number(/V(\d+)$/.exec(name)![1]), version, `${name}: its name and the version it pins differ`);
  }
});
