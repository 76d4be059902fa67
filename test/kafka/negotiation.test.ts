// Version negotiation (issue 29): the gateway sends each API at the highest version it and the
// broker both speak, and never outside the broker's range. Against Kafka's table of ranges per
// release (src/kafka/releases/, a copy of the shared reference): every release from 2.8 to 4.2
// meets every API the gateway sends; older ones miss at least one (the floor). Over the wire:
// the simulator answering as 2.8 (ZooKeeper), 3.3, 3.7, 4.0, 4.1 and 4.2 records no request outside its range.
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GATEWAY_APIS, negotiate, unsupportedApiError, type BrokerApiVersions } from '../../src/kafka/apis/versions.js';
import { API_VERSIONS_BY_RELEASE } from '../../src/domain/kafka-api-versions-by-release.js';
import { createKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { StateTopic } from '../../src/kafka/state-topic.js';
import { startSimulator } from '../../src/sim/index.js';

function brokerOf(release: string): BrokerApiVersions {
  const table = API_VERSIONS_BY_RELEASE[release];
  return {
    ranges: new Map(Object.values(table).map(([k, min, max]) => [k, [min, max] as const])),
    supportedFeatures: [],
    finalizedFeatures: [],
  };
}
const minor = (release: string): number => {
  const [ma, mi] = release
    .replace(/^(zk|kraft-broker)-/, '')
    .split('.')
    .map(Number);
  return ma * 100 + mi;
};

describe('against Kafka release table', () => {
  const releases = Object.keys(API_VERSIONS_BY_RELEASE);

  it('every release from 2.8 to 4.2 accepts a version of every API the gateway sends', () => {
    const supported = releases.filter((r) => minor(r) >= 208);
    assert.ok(supported.length >= 20);
    for (const r of supported) {
      for (const api of Object.values(GATEWAY_APIS)) {
        const v = negotiate(api, brokerOf(r));
        assert.notEqual(v, null, `${r} ${api.name}`);
        const [, min, max] =
          API_VERSIONS_BY_RELEASE[r][api.name === 'AlterPartitionReassignments' ? 'AlterPartitionAssignments' : api.name];
        assert.ok(v! >= min && v! <= max, `${r} ${api.name} v${v} inside v${min}-v${max}`);
        assert.equal(v, Math.min(api.max, max), `${r} ${api.name}: the highest both speak`);
      }
    }
  });

  it('each API range starts at what 2.8 accepts (the floor) and ends no higher than 4.2 accepts', () => {
    for (const api of Object.values(GATEWAY_APIS)) {
      const name = api.name === 'AlterPartitionReassignments' ? 'AlterPartitionAssignments' : api.name;
      assert.equal(api.min, API_VERSIONS_BY_RELEASE['zk-2.8'][name][2], `${api.name}: 2.8's newest`);
      assert.ok(api.max <= API_VERSIONS_BY_RELEASE['kraft-broker-4.2'][name][2], `${api.name}: within 4.2`);
    }
  });

  it('releases below 2.8 miss at least one API the gateway needs', () => {
    for (const r of releases.filter((x) => minor(x) < 208)) {
      const missing = Object.values(GATEWAY_APIS).filter((api) => negotiate(api, brokerOf(r)) === null);
      assert.ok(missing.length > 0, r);
    }
  });

  it('the highest common version: 2.8 Fetch v12, 3.7 Produce v10 and Fetch v16, 4.2 Fetch v18', () => {
    assert.equal(negotiate(GATEWAY_APIS.Fetch, brokerOf('zk-2.8')), 12);
    assert.equal(negotiate(GATEWAY_APIS.Produce, brokerOf('kraft-broker-3.7')), 10);
    assert.equal(negotiate(GATEWAY_APIS.Fetch, brokerOf('kraft-broker-3.7')), 16);
    assert.equal(negotiate(GATEWAY_APIS.DescribeLogDirs, brokerOf('zk-3.2')), 3);
    assert.equal(negotiate(GATEWAY_APIS.Fetch, brokerOf('kraft-broker-4.2')), 18);
  });

  it('4.0, 4.1 and 4.2 each get their own newest: Produce 12/13, Fetch 17/18, ListOffsets 10/11, Metadata 13, DescribeCluster 2, AlterPartitionReassignments 0/1', () => {
    const at = (release: string) => {
      const b = brokerOf(release);
      const { Produce, Fetch, ListOffsets, Metadata, DescribeCluster, AlterPartitionReassignments } = GATEWAY_APIS;
      return [Produce, Fetch, ListOffsets, Metadata, DescribeCluster, AlterPartitionReassignments].map((api) => negotiate(api, b));
    };
    assert.deepEqual(at('kraft-broker-3.9'), [11, 17, 9, 12, 1, 0]);
    assert.deepEqual(at('kraft-broker-4.0'), [12, 17, 10, 13, 2, 0]);
    assert.deepEqual(at('kraft-broker-4.1'), [13, 18, 10, 13, 2, 1]);
    assert.deepEqual(at('kraft-broker-4.2'), [13, 18, 11, 13, 2, 1]);
  });

  it('no common version: UNSUPPORTED_VERSION naming both ranges, nothing sent', () => {
    const old = brokerOf('zk-2.7');
    assert.equal(negotiate(GATEWAY_APIS.Produce, old), null);
    const e = unsupportedApiError(GATEWAY_APIS.Produce, old);
    assert.equal(e.kafka.code, 35);
    assert.match(e.kafka.message, /accepts Produce v0-v8; the gateway speaks v9-v13/);
    assert.match(unsupportedApiError(GATEWAY_APIS.DescribeCluster, old).kafka.message, /does not offer DescribeCluster/);
  });
});

for (const [version, mode] of [
  ['2.8', 'zookeeper'],
  ['3.3', 'kraft'],
  ['3.7', 'kraft'],
  ['4.0', 'kraft'],
  ['4.1', 'kraft'],
  ['4.2', 'kraft'],
] as const) {
  test(`over the wire, Kafka ${version} (${mode}): cluster, topics, log dirs and the state topic, no request outside the range`, async () => {
    const sim = await startSimulator({ brokers: 3, kafkaVersion: version, kafkaMode: mode });
    const gw = createKafkaGateway(
      parseKafkaConfig({ KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','), KAFKA_RETRIES: '2', KAFKA_RETRY_BACKOFF_MS: '20' }),
    );
    try {
      const cluster = await gw.describeCluster();
      assert.equal(cluster.brokers.length, 3);
      const [created] = await gw.createTopics([{ name: 'neg', partitions: 2, replicationFactor: 2 }]);
      assert.equal(created.ok, true, JSON.stringify(created));
      assert.equal((await gw.describeTopic('neg')).partitions.length, 2);
      const sizes = await gw.describeReplicaSizes([0, 1, 2], [{ topic: 'neg', partition: 0 }]);
      assert.ok(
        sizes.every((s) => s.ok),
        JSON.stringify(sizes),
      );
      const st = new StateTopic(gw, { name: '_neg_state' });
      await st.ensure();
      await st.write([{ key: 'a', value: '1' }]);
      const { start, end } = await st.offsets();
      assert.deepEqual(
        (await st.read(start, end)).map((r) => [r.key, r.value]),
        [['a', '1']],
      );
      assert.deepEqual(sim.outOfRange, [], 'no request outside the release range');
    } finally {
      await gw.close();
      await sim.close();
    }
  });
}

test('a broker that refuses ApiVersions v3: a KafkaRequestError, not taken for the answer of the request it was for', async () => {
  const { ResponseError } = await import('@platformatic/kafka');
  const { versionFor } = await import('../../src/kafka/apis/versions.js');
  const { KafkaRequestError } = await import('../../src/kafka/errors.js');
  const conn = {
    send(_k: number, _v: number, _p: unknown, _parser: unknown, _a: boolean, _b: boolean, cb: (err: Error | null) => void) {
      cb(new ResponseError(18, 3, { '/': [35, null] }, { errorCode: 35, apiKeys: [], throttleTimeMs: 0 }));
    },
  } as never;
  await assert.rejects(
    versionFor(conn, GATEWAY_APIS.Metadata),
    (err: unknown) => err instanceof KafkaRequestError && err.kafka.code === 35 && /refused ApiVersions v3/.test(err.message),
  );
});

// What test/kafka/pinned-versions.test.ts checked before negotiation: a client module named
// <api>V<N> must send that API's key at version N (the binding moved once: in 1.x
// describeClientQuotasV0 sent v1). Every such module src/ imports is checked.
test('every client module src/ imports sends the API key and version its name says', async () => {
  const kafka = (await import('@platformatic/kafka')) as unknown as Record<
    string,
    { api?: { key?: number; version?: number } } | undefined
  >;
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
    );
  const keys = new Map<string, number>([
    ...Object.values(GATEWAY_APIS).map((a) => [a.name[0].toLowerCase() + a.name.slice(1), a.key] as const),
    ['apiVersions', 18],
  ]);
  const imported = new Set<string>();
  for (const file of files('src')) {
    for (const m of readFileSync(file, 'utf8').matchAll(/import\s*\{([^}]*)\}\s*from\s*'@platformatic\/kafka'/g)) {
      for (const raw of m[1].split(',')) {
        const name = raw
          .replace(/^\s*type\s+/, '')
          .split(/\s+as\s+/)[0]
          .trim();
        if (/^[a-z][A-Za-z]*V\d+$/.test(name)) imported.add(name);
      }
    }
  }
  assert.ok(imported.size >= 15, [...imported].join(', '));
  for (const name of imported) {
    const [, base, version] = /^([a-zA-Z]+)V(\d+)$/.exec(name)!;
    const api = kafka[name]?.api;
    assert.ok(api, `${name} is not exported by @platformatic/kafka`);
    assert.equal(api.version, Number(version), `${name} sends v${api.version}`);
    if (keys.has(base)) assert.equal(api.key, keys.get(base), `${name} sends key ${api.key}`);
  }
});
