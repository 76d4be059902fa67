// GET /cluster names the Kafka release and mode (issue 29), and the start-up check announces
// them (log, kafka_gateway_cluster_info) or refuses a cluster below Kafka 2.8.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { startGateway, recordingLogger } from './helpers.js';
import type { Logger } from '../../src/observability/logger.js';
import { startSimulator } from '../../src/sim/index.js';
import { createKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { announceKafkaRelease, KafkaReleaseRefusedError } from '../../src/observability/kafka-release.js';

for (const [version, mode, degraded] of [
  [undefined, 'kraft', []],
  ['2.8', 'zookeeper', ['disk-headroom', 'log-dirs-authorization']],
  ['3.2', 'zookeeper', ['disk-headroom']],
  ['3.7', 'kraft', []],
] as const) {
  test(`GET /cluster at Kafka ${version ?? 'default (4.2)'}: release, mode, degraded features`, async () => {
    const gw = await startGateway({ simulator: { ...(version && { kafkaVersion: version }) } });
    try {
      const res = await gw.http().get('/cluster').expect(200);
      assert.equal(res.body.brokers.length, 3);
      assert.deepEqual([res.body.kafka.release, res.body.kafka.mode], [version ?? '4.2', mode]);
      assert.deepEqual(
        res.body.kafka.degraded.map((d: { feature: string }) => d.feature),
        degraded,
      );
      assert.deepEqual(gw.sim.outOfRange, []);
    } finally {
      await gw.close();
    }
  });
}

async function announceAt(version: string, mode?: 'zookeeper' | 'kraft') {
  const sim = await startSimulator({ brokers: 1, kafkaVersion: version, ...(mode && { kafkaMode: mode }) });
  const kafka = createKafkaGateway(parseKafkaConfig({ KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','), KAFKA_RETRIES: '0' }));
  const infos: { msg: string; fields?: Record<string, unknown> }[] = [];
  const logger: Logger & { infos: typeof infos; warnings: ReturnType<typeof recordingLogger>['warnings'] } = {
    ...recordingLogger(),
    infos,
    info: (msg, fields) => void infos.push({ msg, ...(fields && { fields }) }),
  };
  const registry = new Registry();
  try {
    const result = await announceKafkaRelease(() => kafka.kafkaRelease(), logger, registry).catch((err: unknown) => err);
    return { result, logger, metrics: await registry.metrics(), outOfRange: sim.outOfRange };
  } finally {
    await kafka.close();
    await sim.close();
  }
}

test('start-up: the release in the log and kafka_gateway_cluster_info{release,mode} = 1; degraded features warned', async () => {
  const { result, logger, metrics, outOfRange } = await announceAt('3.1', 'zookeeper');
  assert.equal((result as { release: string }).release, '3.1');
  assert.match(metrics, /kafka_gateway_cluster_info\{release="3\.1",mode="zookeeper"\} 1/);
  assert.deepEqual(
    logger.infos.filter((e) => e.msg === 'kafka release detected').map((e) => [e.fields?.release, e.fields?.mode]),
    [['3.1', 'zookeeper']],
  );
  assert.deepEqual(
    logger.warnings.filter((e) => e.msg === 'kafka feature degraded').map((e) => e.fields?.feature),
    ['disk-headroom', 'log-dirs-authorization'],
  );
  assert.deepEqual(outOfRange, []);
});

test('start-up: below Kafka 2.8 the gateway refuses, naming what it detected; nothing outside the range was sent', async () => {
  const { result, outOfRange } = await announceAt('2.7');
  assert.ok(result instanceof KafkaReleaseRefusedError, String(result));
  assert.match(result.message, /^Kafka 2\.7 \(ZooKeeper mode\) detected; the gateway needs Kafka 2\.8 or later/);
  assert.deepEqual(outOfRange, []);
});
