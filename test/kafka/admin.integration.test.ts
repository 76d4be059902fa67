// Integration tests: the real @platformatic/kafka client against the project's
// wire-protocol simulator (src/sim). Nothing is mocked.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { tracingChannel } from 'node:diagnostics_channel';
import { createServer, type AddressInfo } from 'node:net';
import { startSimulator } from '../../src/sim/index.js';
import { createKafkaGateway, type PlatformaticKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig, type KafkaConfig } from '../../src/kafka/config.js';
import { KafkaRequestError } from '../../src/kafka/errors.js';
import type { ItemResult } from '../../src/kafka/types.js';

type Sim = Awaited<ReturnType<typeof startSimulator>>;

function configFor(bootstrap: string[], extra: Record<string, string> = {}): KafkaConfig {
  return parseKafkaConfig({
    KAFKA_BOOTSTRAP_SERVERS: bootstrap.join(','),
    KAFKA_REQUEST_TIMEOUT_MS: '5000',
    KAFKA_CONNECT_TIMEOUT_MS: '1000',
    KAFKA_RETRY_BACKOFF_MS: '50',
    KAFKA_RETRY_BACKOFF_MAX_MS: '200',
    ...extra,
  });
}

interface Call {
  api: string;
  errorName: string;
  seconds: number;
}

function gatewayWithCalls(config: KafkaConfig): { gw: PlatformaticKafkaGateway; calls: Call[] } {
  const calls: Call[] = [];
  const gw = createKafkaGateway(config, { onKafkaRequest: (api, errorName, seconds) => calls.push({ api, errorName, seconds }) });
  return { gw, calls };
}

function byName<T>(items: ItemResult<T>[]): Record<string, ItemResult<T>> {
  return Object.fromEntries(items.map((i) => [i.name, i]));
}

function errName(item: ItemResult<unknown> | undefined): string | undefined {
  return item && !item.ok ? item.error.name : undefined;
}

/** Records (apiKey, apiVersion) of every request any @platformatic/kafka connection sends. */
function watchApiVersions(): { seen: { apiKey: number; apiVersion: number }[]; stop: () => void } {
  const seen: { apiKey: number; apiVersion: number }[] = [];
  const ch = tracingChannel('plt:kafka:connections:api');
  const handlers = {
    start(ctx: unknown) {
      const c = ctx as { apiKey: number; apiVersion: number };
      seen.push({ apiKey: c.apiKey, apiVersion: c.apiVersion });
    },
  };
  ch.subscribe(handlers as never);
  return { seen, stop: () => ch.unsubscribe(handlers as never) };
}

describe('PlatformaticKafkaGateway against the simulator', () => {
  let sim: Sim;
  let gw: PlatformaticKafkaGateway;
  let calls: Call[];

  before(async () => {
    sim = await startSimulator({ brokers: 3, racks: ['r1', 'r2', null] });
    ({ gw, calls } = gatewayWithCalls(configFor(sim.bootstrapServers)));
  });
  after(async () => {
    await gw?.close();
    await sim?.close();
  });

  test('ping and describeCluster', async () => {
    await gw.ping();
    const c = await gw.describeCluster();
    assert.equal(c.clusterId, sim.clusterId);
    assert.deepEqual(
      c.brokers.map((b) => b.id),
      [0, 1, 2],
    );
    assert.equal(c.brokers[0].rack, 'r1');
    assert.equal(c.brokers[2].rack, null);
    assert.ok([0, 1, 2].includes(c.controllerId));
    for (const b of c.brokers) {
      assert.equal(b.host, '127.0.0.1');
      assert.ok(b.port > 0);
    }
    assert.ok(calls.some((x) => x.api === 'DescribeCluster' && x.errorName === 'NONE' && x.seconds >= 0));
  });

  test('createTopics: mixed per-item results in one request, v7 on the wire', async () => {
    const watch = watchApiVersions();
    let res: ItemResult<unknown>[];
    try {
      await gw.createTopics([{ name: 'exists-already', partitions: 1, replicationFactor: 1 }]);
      res = await gw.createTopics([
        { name: 'ok-topic', partitions: 3, replicationFactor: 2, configs: { 'cleanup.policy': 'compact' } },
        { name: 'exists-already', partitions: 1, replicationFactor: 1 },
        { name: 'bad name!', partitions: 1, replicationFactor: 1 },
        { name: 'bad-partitions', partitions: 0, replicationFactor: 1 },
        { name: 'bad-rf', partitions: 1, replicationFactor: 7 },
        { name: 'bad-assignment', assignments: [[0, 0]] },
        { name: 'bad-config', partitions: 1, replicationFactor: 1, configs: { 'cleanup.policy': 'nonsense' } },
        { name: 'defaults' },
        {
          name: 'assigned',
          assignments: [
            [0, 1],
            [1, 2],
          ],
        },
      ]);
    } finally {
      watch.stop();
    }
    const r = byName(res);
    const ok = r['ok-topic'];
    assert.ok(ok.ok);
    assert.deepEqual(
      { ...(ok.value as object), topicId: undefined },
      { name: 'ok-topic', topicId: undefined, partitions: 3, replicationFactor: 2 },
    );
    // Kafka's own printed form (base64url), the same id the cluster holds.
    assert.equal((ok.value as { topicId: string }).topicId, sim.model.getTopic('ok-topic')!.topicId);
    assert.equal(errName(r['exists-already']), 'TOPIC_ALREADY_EXISTS');
    assert.equal(errName(r['bad name!']), 'INVALID_TOPIC_EXCEPTION');
    assert.equal(errName(r['bad-partitions']), 'INVALID_PARTITIONS');
    assert.equal(errName(r['bad-rf']), 'INVALID_REPLICATION_FACTOR');
    assert.equal(errName(r['bad-assignment']), 'INVALID_REPLICA_ASSIGNMENT');
    assert.equal(errName(r['bad-config']), 'INVALID_CONFIG');
    assert.ok(r['defaults'].ok, JSON.stringify(r['defaults']));
    assert.ok(r['assigned'].ok, JSON.stringify(r['assigned']));
    // the broker's own message is kept
    const ex = r['exists-already'];
    assert.ok(!ex.ok && ex.error.message.includes('exists-already'), JSON.stringify(ex));
    // order is the request order
    assert.deepEqual(
      res.map((x) => x.name),
      ['ok-topic', 'exists-already', 'bad name!', 'bad-partitions', 'bad-rf', 'bad-assignment', 'bad-config', 'defaults', 'assigned'],
    );
    const ct = watch.seen.filter((s) => s.apiKey === 19);
    assert.ok(ct.length >= 2);
    assert.ok(
      ct.every((s) => s.apiVersion === 7),
      JSON.stringify(ct),
    );

    const d = await gw.describeTopic('assigned');
    assert.deepEqual(
      d.partitions.map((p) => p.replicas),
      [
        [0, 1],
        [1, 2],
      ],
    );
  });

  test('createTopics validateOnly changes nothing', async () => {
    const res = await gw.createTopics([{ name: 'validate-only', partitions: 2, replicationFactor: 1 }], { validateOnly: true });
    assert.ok(res[0].ok, JSON.stringify(res));
    assert.equal((res[0].value as { partitions: number }).partitions, 2);
    const topics = await gw.listTopics();
    assert.ok(!topics.some((t) => t.name === 'validate-only'));
    await assert.rejects(gw.describeTopic('validate-only'), (e: KafkaRequestError) => e.kind === 'kafka' && e.kafka.code === 3);
  });

  test('listTopics and describeTopic', async () => {
    await gw.createTopics([{ name: 'described', partitions: 2, replicationFactor: 3, configs: { 'retention.ms': '60000' } }]);
    const list = await gw.listTopics();
    const t = list.find((x) => x.name === 'described');
    assert.ok(t);
    assert.equal(t.partitions, 2);
    assert.equal(t.replicationFactor, 3);
    assert.equal(t.internal, false);
    assert.deepEqual(
      list.map((x) => x.name),
      [...list.map((x) => x.name)].sort((a, b) => a.localeCompare(b)),
    );

    const d = await gw.describeTopic('described');
    assert.equal(d.name, 'described');
    assert.equal(d.partitions.length, 2);
    for (const p of d.partitions) {
      assert.equal(p.replicas.length, 3);
      assert.ok(p.replicas.includes(p.leader));
    }
    const retention = d.configs.find((c) => c.name === 'retention.ms');
    assert.ok(retention);
    assert.equal(retention.value, '60000');
    assert.equal(retention.source, 'TOPIC_CONFIG');
    assert.equal(retention.isDefault, false);
    const other = d.configs.find((c) => c.name === 'cleanup.policy');
    assert.ok(other);
    assert.notEqual(other.source, 'TOPIC_CONFIG');
  });

  test('describeTopic of an unknown topic → kafka error 3', async () => {
    await assert.rejects(gw.describeTopic('no-such-topic'), (e: unknown) => {
      assert.ok(e instanceof KafkaRequestError);
      assert.equal(e.kind, 'kafka');
      assert.equal(e.kafka.code, 3);
      assert.equal(e.kafka.name, 'UNKNOWN_TOPIC_OR_PARTITION');
      return true;
    });
  });

  test('createPartitions: two increases in one call, per-item errors, validateOnly, v3', async () => {
    await gw.createTopics([
      { name: 'cp-a', partitions: 1, replicationFactor: 1 },
      { name: 'cp-b', partitions: 1, replicationFactor: 1 },
      { name: 'cp-c', partitions: 2, replicationFactor: 1 },
    ]);
    const watch = watchApiVersions();
    let res: ItemResult<null>[];
    try {
      res = await gw.createPartitions([
        { topic: 'cp-a', count: 2 },
        { topic: 'cp-b', count: 3 },
        { topic: 'cp-c', count: 1 }, // decrease: INVALID_PARTITIONS
        { topic: 'cp-missing', count: 2 },
      ]);
    } finally {
      watch.stop();
    }
    const r = byName(res);
    assert.ok(r['cp-a'].ok);
    assert.ok(r['cp-b'].ok);
    assert.equal(errName(r['cp-c']), 'INVALID_PARTITIONS');
    assert.equal(errName(r['cp-missing']), 'UNKNOWN_TOPIC_OR_PARTITION');
    assert.ok(watch.seen.filter((s) => s.apiKey === 37).every((s) => s.apiVersion === 3));
    assert.equal((await gw.describeTopic('cp-a')).partitions.length, 2);
    assert.equal((await gw.describeTopic('cp-b')).partitions.length, 3);

    // validateOnly: accepted, nothing changes
    const v = await gw.createPartitions([{ topic: 'cp-a', count: 5 }], { validateOnly: true });
    assert.ok(v[0].ok, JSON.stringify(v));
    assert.equal((await gw.describeTopic('cp-a')).partitions.length, 2);

    // explicit assignment for the new partition
    const a = await gw.createPartitions([{ topic: 'cp-a', count: 3, assignments: [[2]] }]);
    assert.ok(a[0].ok, JSON.stringify(a));
    const d = await gw.describeTopic('cp-a');
    assert.deepEqual(d.partitions[2].replicas, [2]);

    // concurrent calls are serialised, none is lost
    const [x, y] = await Promise.all([
      gw.createPartitions([{ topic: 'cp-a', count: 4 }]),
      gw.createPartitions([{ topic: 'cp-b', count: 4 }]),
    ]);
    assert.ok(x[0].ok && y[0].ok);
    assert.equal((await gw.describeTopic('cp-a')).partitions.length, 4);
    assert.equal((await gw.describeTopic('cp-b')).partitions.length, 4);
  });

  test('deleteTopics: per-item results, v6', async () => {
    await gw.createTopics([{ name: 'del-1', partitions: 1, replicationFactor: 1 }]);
    const watch = watchApiVersions();
    let res: ItemResult<null>[];
    try {
      res = await gw.deleteTopics(['del-1', 'del-missing']);
    } finally {
      watch.stop();
    }
    const r = byName(res);
    assert.ok(r['del-1'].ok);
    assert.equal(errName(r['del-missing']), 'UNKNOWN_TOPIC_OR_PARTITION');
    assert.ok(watch.seen.filter((s) => s.apiKey === 20).length >= 1);
    assert.ok(watch.seen.filter((s) => s.apiKey === 20).every((s) => s.apiVersion === 6));
    assert.ok(!(await gw.listTopics()).some((t) => t.name === 'del-1'));
  });

  test('duplicate names in one request are rejected per item', async () => {
    const res = await gw.createTopics([{ name: 'dup' }, { name: 'dup' }, { name: 'not-dup', partitions: 1, replicationFactor: 1 }]);
    assert.equal(errName(res[0]), 'INVALID_REQUEST');
    assert.equal(errName(res[1]), 'INVALID_REQUEST');
    assert.ok(res[2].ok);
  });

  test('the metrics hook sees every call with API name and error name', () => {
    const apis = new Set(calls.map((c) => c.api));
    for (const api of ['Metadata', 'DescribeCluster', 'CreateTopics', 'DeleteTopics', 'CreatePartitions', 'DescribeConfigs']) {
      assert.ok(apis.has(api), `${api} missing from ${[...apis].join(',')}`);
    }
    assert.ok(calls.some((c) => c.api === 'CreateTopics' && c.errorName === 'TOPIC_ALREADY_EXISTS'));
    assert.ok(calls.every((c) => typeof c.seconds === 'number' && c.seconds >= 0 && c.seconds < 10));
  });
});

describe('failure handling', () => {
  test('unreachable cluster → unavailable, quickly and bounded', async () => {
    // a port nothing listens on
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const port = (srv.address() as AddressInfo).port;
    await new Promise<void>((r) => srv.close(() => r()));

    const { gw, calls } = gatewayWithCalls(configFor([`127.0.0.1:${port}`]));
    try {
      const t0 = Date.now();
      for (const op of [() => gw.describeCluster(), () => gw.createTopics([{ name: 'x' }]), () => gw.listTopics()]) {
        await assert.rejects(op(), (e: unknown) => {
          assert.ok(e instanceof KafkaRequestError, String(e));
          assert.equal(e.kind, 'unavailable');
          return true;
        });
      }
      await assert.rejects(gw.ping(), (e: KafkaRequestError) => e.kind === 'unavailable');
      assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
      // 1 + 3 retries per call, each reported
      assert.ok(calls.filter((c) => c.api === 'DescribeCluster').length === 4, JSON.stringify(calls));
      assert.ok(calls.every((c) => c.errorName === 'NETWORK_EXCEPTION'));
    } finally {
      await gw.close();
    }
  });

  test('controller mutation quota: error 89 per item with throttle_time_ms, never retried', async () => {
    const sim = await startSimulator({ brokers: 3 });
    const { gw, calls } = gatewayWithCalls(configFor(sim.bootstrapServers, { KAFKA_CLIENT_ID: 'quota-test' }));
    try {
      // 1 mutation/s for our client id: burst 11 tokens, a new bucket starts full.
      await gw.client.alterClientQuotas({
        entries: [
          {
            entities: [{ entityType: 'client-id', entityName: 'quota-test' }],
            ops: [{ key: 'controller_mutation_rate' as never, value: 1, remove: false }],
          },
        ],
      });
      const watch = watchApiVersions();
      let res: ItemResult<unknown>[];
      try {
        res = await gw.createTopics([
          { name: 'q-1', partitions: 10, replicationFactor: 1 }, // 11 -> 1
          { name: 'q-2', partitions: 5, replicationFactor: 1 }, // 1 >= 0: accepted, -> -4
          { name: 'q-3', partitions: 1, replicationFactor: 1 }, // -4 < 0: refused
        ]);
      } finally {
        watch.stop();
      }
      assert.ok(res[0].ok, JSON.stringify(res[0]));
      assert.ok(res[1].ok, JSON.stringify(res[1]));
      const q3 = res[2];
      assert.ok(!q3.ok);
      assert.equal(q3.error.code, 89);
      assert.equal(q3.error.name, 'THROTTLING_QUOTA_EXCEEDED');
      assert.ok(
        q3.error.throttleTimeMs !== undefined && q3.error.throttleTimeMs > 3000 && q3.error.throttleTimeMs <= 4000,
        JSON.stringify(q3),
      );
      // exactly one CreateTopics request: 89 is not retried, by us or by the client
      assert.equal(watch.seen.filter((x) => x.apiKey === 19).length, 1);
      assert.equal(calls.filter((c) => c.api === 'CreateTopics').length, 1);
      assert.equal(calls.find((c) => c.api === 'CreateTopics')?.errorName, 'THROTTLING_QUOTA_EXCEEDED');

      const cp = await gw.createPartitions([{ topic: 'q-1', count: 11 }]);
      assert.equal(errName(cp[0]), 'THROTTLING_QUOTA_EXCEEDED');
      assert.ok(!cp[0].ok && (cp[0].error.throttleTimeMs ?? 0) > 0);
      const del = await gw.deleteTopics(['q-2']);
      assert.equal(errName(del[0]), 'THROTTLING_QUOTA_EXCEEDED');
      assert.ok((await gw.listTopics()).some((t) => t.name === 'q-2'));
    } finally {
      await gw.close();
      await sim.close();
    }
  });

  test('a broker that never answers → timeout, not retried; ping bounded by its own timeout', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const srv = createServer((sock) => {
      sockets.add(sock);
      sock.on('error', () => {});
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const port = (srv.address() as AddressInfo).port;
    const { gw, calls } = gatewayWithCalls(
      configFor([`127.0.0.1:${port}`], { KAFKA_REQUEST_TIMEOUT_MS: '300', KAFKA_PING_TIMEOUT_MS: '200' }),
    );
    try {
      await assert.rejects(gw.describeCluster(), (e: KafkaRequestError) => {
        assert.equal(e.kind, 'timeout');
        assert.equal(e.kafka.name, 'REQUEST_TIMED_OUT');
        return true;
      });
      assert.equal(calls.filter((c) => c.api === 'DescribeCluster').length, 1);
      assert.equal(calls[0].errorName, 'REQUEST_TIMED_OUT');
      const t0 = Date.now();
      await assert.rejects(gw.ping(), (e: KafkaRequestError) => e.kind === 'timeout');
      assert.ok(Date.now() - t0 < 280, `ping took ${Date.now() - t0} ms`);
    } finally {
      await gw.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => srv.close(() => r()));
    }
  });

  test('SASL PLAIN: good credentials work, bad ones → unavailable SASL_AUTHENTICATION_FAILED without retries', async () => {
    const sim = await startSimulator({ brokers: 1, saslPlainUsers: { admin: 'secret' } });
    const good = gatewayWithCalls(
      configFor(sim.bootstrapServers, { KAFKA_SASL_MECHANISM: 'PLAIN', KAFKA_SASL_USERNAME: 'admin', KAFKA_SASL_PASSWORD: 'secret' }),
    );
    const bad = gatewayWithCalls(
      configFor(sim.bootstrapServers, { KAFKA_SASL_MECHANISM: 'PLAIN', KAFKA_SASL_USERNAME: 'admin', KAFKA_SASL_PASSWORD: 'wrong' }),
    );
    try {
      const c = await good.gw.describeCluster();
      assert.equal(c.brokers.length, 1);
      await assert.rejects(bad.gw.describeCluster(), (e: KafkaRequestError) => {
        assert.equal(e.kind, 'unavailable');
        assert.equal(e.kafka.name, 'SASL_AUTHENTICATION_FAILED');
        return true;
      });
      assert.equal(bad.calls.length, 1);
    } finally {
      await good.gw.close();
      await bad.gw.close();
      await sim.close();
    }
  });

  test('after close, calls fail with unavailable', async () => {
    const { gw } = gatewayWithCalls(configFor(['127.0.0.1:1']));
    await gw.close();
    await assert.rejects(gw.listTopics(), (e: KafkaRequestError) => e.kind === 'unavailable');
  });

  test('NOT_CONTROLLER: the request reaches the new controller after a controller change', async () => {
    const sim = await startSimulator({ brokers: 3, notControllerErrors: true });
    const { gw, calls } = gatewayWithCalls(configFor(sim.bootstrapServers));
    try {
      const before = await gw.describeCluster();
      const r1 = await gw.createTopics([{ name: 'nc-1', partitions: 1, replicationFactor: 1 }]);
      assert.ok(r1[0].ok, JSON.stringify(r1));
      // stop the controller: the cached route breaks, the gateway must find the new one
      await sim.stopBroker(before.controllerId);
      const r2 = await gw.createTopics([{ name: 'nc-2', partitions: 1, replicationFactor: 1 }]);
      assert.ok(r2[0].ok, JSON.stringify(r2));
      const after = await gw.describeCluster();
      assert.notEqual(after.controllerId, before.controllerId);
      // bring it back: it is no longer the controller; a stale route to it gets NOT_CONTROLLER
      await sim.startBroker(before.controllerId);
      const r3 = await gw.createPartitions([{ topic: 'nc-1', count: 2 }]);
      assert.ok(r3[0].ok, JSON.stringify(r3));
      const r4 = await gw.deleteTopics(['nc-2']);
      assert.ok(r4[0].ok, JSON.stringify(r4));
      // (Which broker answered NOT_CONTROLLER first depends on the broker the gateway picked: it
      // sends controller requests to any broker until one answers NOT_CONTROLLER.)
      assert.ok(calls.length > 0);
    } finally {
      await gw.close();
      await sim.close();
    }
  });

  test('KRaft: the reported controller id is not relied on; controller requests go to any broker', async () => {
    // A KRaft broker reports a random live broker as the controller. Here it always reports
    // broker 2, which answers nothing for 30 s: a gateway routing controller requests by the
    // reported id would time out; every controller-bound call must still succeed at once.
    const sim = await startSimulator({ brokers: 3, controllerRandom: () => 0.99 });
    const { gw, calls } = gatewayWithCalls(configFor(sim.bootstrapServers, { KAFKA_REQUEST_TIMEOUT_MS: '1000', KAFKA_RETRIES: '0' }));
    try {
      assert.equal((await gw.describeCluster()).controllerId, 2);
      sim.setBrokerDelay(2, 30_000);
      assert.ok((await gw.createTopics([{ name: 'kraft-any', assignments: [[0]] }]))[0].ok);
      assert.ok((await gw.createPartitions([{ topic: 'kraft-any', count: 2, assignments: [[1]] }]))[0].ok);
      const moved = await gw.alterPartitionReassignments([{ topic: 'kraft-any', partition: 0, replicas: [1] }]);
      assert.ok(moved[0].ok, JSON.stringify(moved));
      await gw.listPartitionReassignments();
      assert.ok((await gw.deleteTopics(['kraft-any']))[0].ok);
      assert.deepEqual(
        calls.filter((c) => c.errorName !== 'NONE'),
        [],
      );
    } finally {
      sim.setBrokerDelay(2, 0);
      await gw.close();
      await sim.close();
    }
  });

  test('NOT_CONTROLLER from a stale controller route is retried on the real controller', async () => {
    const sim = await startSimulator({ brokers: 3, notControllerErrors: true });
    const { gw, calls } = gatewayWithCalls(configFor(sim.bootstrapServers));
    try {
      const c = await gw.describeCluster();
      const other = [0, 1, 2].find((id) => id !== c.controllerId)!;
      // Poison the route: pretend the controller is another broker (what a cached
      // controllerId looks like after a controller move).
      (gw as unknown as { _setControllerForTest(id: number): void })._setControllerForTest(other);
      const r = await gw.createTopics([{ name: 'nc-stale', partitions: 1, replicationFactor: 1 }]);
      assert.ok(r[0].ok, JSON.stringify(r));
      assert.ok(
        calls.some((x) => x.api === 'CreateTopics' && x.errorName === 'NOT_CONTROLLER'),
        JSON.stringify(calls),
      );
      assert.ok(calls.some((x) => x.api === 'CreateTopics' && x.errorName === 'NONE'));
    } finally {
      await gw.close();
      await sim.close();
    }
  });
});
