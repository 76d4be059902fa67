import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeKafka, detectMode, guessRelease, type ApiVersionsAnswer } from '../../src/domain/kafka-release.js';
import { API_VERSIONS_BY_RELEASE as TABLE } from '../../src/domain/kafka-api-versions-by-release.js';
import { GATEWAY_APIS } from '../../src/kafka/apis/versions.js';

const APIS = Object.values(GATEWAY_APIS);
const LEVEL: Record<string, number> = {
  '3.3': 7,
  '3.4': 8,
  '3.5': 11,
  '3.6': 14,
  '3.7': 19,
  '3.8': 20,
  '3.9': 21,
  '4.0': 25,
  '4.1': 27,
  '4.2': 29,
};

/** What a broker of `key` answers: every API of its release; KRaft brokers with metadata.version. */
function answerOf(key: string, only?: ReadonlySet<number>): ApiVersionsAnswer {
  const apis = Object.values(TABLE[key])
    .filter(([k]) => !only || only.has(k))
    .map(([k, min, max]) => ({ key: k, min, max }));
  const release = key.replace(/^(zk|kraft-broker)-/, '');
  if (key.startsWith('zk-')) return { apis, supportedFeatures: [], finalizedFeatures: [] };
  const level = LEVEL[release];
  return {
    apis,
    supportedFeatures: [{ name: 'metadata.version', minVersion: 1, maxVersion: level }],
    finalizedFeatures: [{ name: 'metadata.version', minVersionLevel: level, maxVersionLevel: level }],
  };
}

test('a ZooKeeper-mode broker listing every API of its release is named exactly, from 2.4 to 3.9', () => {
  for (const key of Object.keys(TABLE).filter((k) => k.startsWith('zk-'))) {
    const a = answerOf(key);
    assert.equal(detectMode(a), 'zookeeper');
    assert.equal(guessRelease(a, TABLE), key.slice(3), key);
  }
});

test('a KRaft broker is named by the newest metadata.version it supports; beyond 4.2: "4.2 or newer"', () => {
  for (const key of Object.keys(TABLE).filter((k) => k.startsWith('kraft-broker-'))) {
    const a = answerOf(key);
    assert.equal(detectMode(a), 'kraft');
    assert.equal(guessRelease(a, TABLE), key.slice('kraft-broker-'.length), key);
  }
  const future = answerOf('kraft-broker-4.2');
  assert.equal(
    guessRelease({ ...future, supportedFeatures: [{ name: 'metadata.version', minVersion: 7, maxVersion: 33 }] }, TABLE),
    '4.2 or newer',
  );
});

test('a broker listing only some APIs (the simulator) is named by those; where they cannot tell, both releases', () => {
  const implemented = new Set([0, 1, 2, 3, 17, 18, 19, 20, 32, 33, 34, 35, 36, 37, 44, 45, 46, 48, 49, 60, 75]);
  assert.equal(guessRelease(answerOf('zk-2.8', implemented), TABLE), '2.8');
  assert.equal(guessRelease(answerOf('zk-3.7', implemented), TABLE), '3.7');
  assert.equal(guessRelease(answerOf('zk-3.4', implemented), TABLE), '3.3 or 3.4');
});

test('a ZooKeeper broker with newer maxima than 3.9 is "3.9 or newer"; an answer no release has is "unknown"', () => {
  const a = answerOf('zk-3.9');
  assert.equal(guessRelease({ ...a, apis: a.apis.map((x) => (x.key === 0 ? { ...x, max: 12 } : x)) }, TABLE), '3.9 or newer');
  assert.equal(guessRelease({ ...a, apis: a.apis.map((x) => (x.key === 0 ? { ...x, max: 5 } : x)) }, TABLE), 'unknown');
});

test('degraded by name: 3.1 lacks disk headroom and log-dir errors, 3.2 disk headroom only, 3.3 on nothing', () => {
  const names = (key: string) => describeKafka(answerOf(key), TABLE, APIS).degraded.map((d) => d.feature);
  assert.deepEqual(names('zk-2.8'), ['disk-headroom', 'log-dirs-authorization']);
  assert.deepEqual(names('zk-3.1'), ['disk-headroom', 'log-dirs-authorization']);
  assert.deepEqual(names('zk-3.2'), ['disk-headroom']);
  for (const key of ['zk-3.3', 'zk-3.9', 'kraft-broker-3.3', 'kraft-broker-4.2']) assert.deepEqual(names(key), [], key);
  const d = describeKafka(answerOf('zk-3.2'), TABLE, APIS).degraded[0];
  assert.match(d.detail, /DescribeLogDirs v3 .*total_bytes/);
});

test('below the floor (2.8): refused, naming the release detected and what it lacks; 2.8 and later are not', () => {
  const info = describeKafka(answerOf('zk-2.7'), TABLE, APIS);
  assert.equal(info.release, '2.7');
  assert.match(
    info.refused!,
    /^Kafka 2\.7 \(ZooKeeper mode\) detected; the gateway needs Kafka 2\.8 or later and speaks .*Produce v9-v13 \(it accepts v0-v8\)/,
  );
  assert.match(info.refused!, /DescribeCluster v0-v2 \(it has none\)/);
  assert.deepEqual(
    info.degraded.map((d) => d.feature),
    ['disk-headroom', 'log-dirs-authorization', 'describe-cluster'],
  );
  assert.equal(
    describeKafka(answerOf('zk-2.6'), TABLE, APIS).degraded.some((d) => d.feature === 'controller-mutation-quotas'),
    true,
  );
  for (const key of Object.keys(TABLE).filter((k) => !/^zk-2\.[4-7]$/.test(k)))
    assert.equal(describeKafka(answerOf(key), TABLE, APIS).refused, null, key);
});
