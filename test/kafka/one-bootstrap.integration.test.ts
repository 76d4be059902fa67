// Issue 28 (N1): bootstrap is only the first contact. A gateway given ONE bootstrap broker of a
// 4-broker simulated cluster, warmed up, then that broker stopped (its port refuses connections):
// every path that asks "any broker", the controller, a broker or a partition leader still answers,
// on the gateway's own connections, the state topic's, the page reads' and a per-caller client
// made after the stop. Also: a multi-entry bootstrap list whose first entry is down at start, the
// single entry down at start (fails clearly, as expected), and which requests may move on to
// another broker when a connection is lost under them (reads) and which may not (writes).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { tracingChannel } from 'node:diagnostics_channel';
import { createServer, type Server, type Socket } from 'node:net';
import { createKafkaGateway, type PlatformaticKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig, type KafkaConfig } from '../../src/kafka/config.js';
import { KafkaRequestError } from '../../src/kafka/errors.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';

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

function address(sim: Simulator, id: number): string {
  const e = sim.endpoints().find((b) => b.id === id)!;
  return `${e.host}:${e.port}`;
}

/** Connections any @platformatic/kafka client opened or tried, by "host:port". */
function watchConnects(): { to(addr: string): number; stop(): void } {
  const seen: string[] = [];
  const ch = tracingChannel('plt:kafka:connections:connects');
  const handlers = {
    start(ctx: unknown) {
      const c = ctx as { host?: string; port?: number };
      seen.push(`${c.host}:${c.port}`);
    },
  };
  ch.subscribe(handlers as never);
  return { to: (addr) => seen.filter((s) => s === addr).length, stop: () => ch.unsubscribe(handlers as never) };
}

/** Runs every step, in order; returns "step: error" for each that failed (so all of them are reported at once). */
async function runSteps(steps: [string, () => Promise<unknown>][]): Promise<string[]> {
  const failed: string[] = [];
  for (const [name, step] of steps) {
    try {
      await step();
    } catch (err) {
      const e = err as Partial<KafkaRequestError> & Error;
      failed.push(`${name}: ${e.kafka ? `${e.kind} ${e.kafka.name} ${e.kafka.message}` : e.message}`);
    }
  }
  return failed;
}

function ok<T extends { ok: boolean }>(results: T[]): T[] {
  for (const r of results) assert.ok(r.ok, JSON.stringify(r));
  return results;
}

describe('one bootstrap broker, stopped after warm-up', () => {
  let sim: Simulator;
  let gw: PlatformaticKafkaGateway;

  before(async () => {
    sim = await startSimulator({ brokers: 4 });
    // KAFKA_RETRIES=0: nothing below may lean on a retry to get past the stopped broker.
    gw = createKafkaGateway(configFor([address(sim, 0)], { KAFKA_RETRIES: '0' }));
  });
  after(async () => {
    await gw?.close();
    await sim?.close();
  });

  test('every path answers, and the stopped broker is tried at most once', async () => {
    // Warm-up, with broker 0 everywhere it can be: leader of the state topic and of 'warm'.
    await gw.ping();
    ok(
      await gw.createTopics([
        {
          name: 'warm',
          assignments: [
            [0, 1, 2],
            [1, 2, 3],
          ],
        },
        { name: '_state', assignments: [[0, 1, 2]] },
      ]),
    );
    const state = gw.stateTopic({ name: '_state' });
    await state.ensure({ create: false });
    await state.write([{ key: 'before', value: '1' }]);
    assert.deepEqual(
      (await gw.describeCluster()).brokers.map((b) => b.id),
      [0, 1, 2, 3],
    );

    await sim.stopBroker(0);
    const stopped = address(sim, 0);
    const connects = watchConnects();
    let failed: string[];
    try {
      failed = await runSteps([
        ['ping (the /readyz probe)', () => gw.ping()],
        [
          'describeCluster',
          async () =>
            assert.deepEqual(
              (await gw.describeCluster()).brokers.map((b) => b.id),
              [1, 2, 3],
            ),
        ],
        ['listTopics', async () => assert.ok((await gw.listTopics()).some((t) => t.name === 'warm'))],
        ['describeTopic', async () => assert.notEqual((await gw.describeTopic('warm')).partitions[0].leader, 0)],
        ['describePartitions', () => gw.describePartitions(['warm'])],
        ['createTopics', async () => ok(await gw.createTopics([{ name: 'after-stop', partitions: 2, replicationFactor: 3 }]))],
        ['createPartitions', async () => ok(await gw.createPartitions([{ topic: 'after-stop', count: 3 }]))],
        [
          'describeConfigOverrides (topic, broker)',
          async () =>
            ok(
              await gw.describeConfigOverrides(
                [
                  { kind: 'topic', name: 'warm' },
                  { kind: 'broker', name: '1' },
                ],
                ['retention.ms'],
              ),
            ),
        ],
        [
          'incrementalAlterConfigs',
          async () => {
            const ops = [{ name: 'retention.ms', op: 'SET' as const, value: '60000' }];
            ok(await gw.incrementalAlterConfigs([{ kind: 'topic', name: 'after-stop', ops }]));
          },
        ],
        ['alterClientQuota', () => gw.alterClientQuota({ entity: { clientId: 'n1' }, set: { controller_mutation_rate: 10 }, remove: [] })],
        ['describeClientQuotas', async () => assert.equal((await gw.describeClientQuotas({ clientId: 'n1' })).length, 1)],
        [
          'alterPartitionReassignments',
          async () => ok(await gw.alterPartitionReassignments([{ topic: 'after-stop', partition: 0, replicas: [3, 2, 1] }])),
        ],
        ['listPartitionReassignments', () => gw.listPartitionReassignments()],
        [
          'describeReplicaSizes (live brokers)',
          async () => ok(await gw.describeReplicaSizes([1, 2, 3], [{ topic: 'warm', partition: 1 }])),
        ],
        ['state topic write', () => state.write([{ key: 'after', value: '2' }])],
        [
          'state topic read',
          async () => {
            const { start, end } = await state.offsets();
            assert.deepEqual(
              (await state.read(start, end)).map((r) => r.key),
              ['before', 'after'],
            );
          },
        ],
        [
          'per-caller client made after the stop',
          async () => {
            const caller = gw.forCaller('caller-after-stop');
            assert.ok((await caller.listTopics()).length > 0);
            ok(await caller.createTopics([{ name: 'by-caller', partitions: 1, replicationFactor: 2 }]));
            ok(await caller.deleteTopics(['by-caller']));
          },
        ],
        [
          'page reads (own connections) made after the stop',
          async () => {
            const page = gw.interactive();
            assert.equal((await page.describePartitions(['warm']))[0].partitions.length, 2);
            await page.listPartitionReassignments();
          },
        ],
        ['deleteTopics', async () => ok(await gw.deleteTopics(['after-stop']))],
      ]);
    } finally {
      connects.stop();
    }
    assert.deepEqual(failed, [], 'every request answered with the bootstrap broker down');
    // The first request that needed it found it gone; the rest go straight to a live broker.
    assert.ok(connects.to(stopped) <= 1, `connects to the stopped broker: ${connects.to(stopped)}`);
  });
});

describe('ZooKeeper-mode controller on the one bootstrap broker', () => {
  test('the controller is re-learned through a live broker when it stops', async () => {
    const sim = await startSimulator({ brokers: 3, notControllerErrors: true });
    const controller = sim.model.controllerId;
    const gw = createKafkaGateway(configFor([address(sim, controller)]));
    try {
      ok(await gw.createTopics([{ name: 'zk-before', partitions: 1, replicationFactor: 2 }]));
      await sim.stopBroker(controller);
      const failed = await runSteps([
        ['createTopics', async () => ok(await gw.createTopics([{ name: 'zk-after', partitions: 1, replicationFactor: 2 }]))],
        ['listPartitionReassignments', () => gw.listPartitionReassignments()],
        ['deleteTopics', async () => ok(await gw.deleteTopics(['zk-before', 'zk-after']))],
        ['ping', () => gw.ping()],
      ]);
      assert.deepEqual(failed, []);
      assert.notEqual(sim.model.controllerId, controller);
    } finally {
      await gw.close();
      await sim.close();
    }
  });
});

describe('a bootstrap broker down at start', () => {
  test('with a second entry, start-up and every request go through the live one, the dead one tried once', async () => {
    const sim = await startSimulator({ brokers: 3 });
    const dead = address(sim, 0);
    await sim.stopBroker(0);
    const connects = watchConnects();
    const gw = createKafkaGateway(configFor([dead, address(sim, 1)], { KAFKA_RETRIES: '0' }));
    try {
      await gw.ping();
      assert.deepEqual(
        (await gw.describeCluster()).brokers.map((b) => b.id),
        [1, 2],
      );
      ok(await gw.createTopics([{ name: 'second-entry', partitions: 1, replicationFactor: 2 }]));
      await gw.listTopics();
      ok(await gw.deleteTopics(['second-entry']));
      assert.equal(connects.to(dead), 1);
    } finally {
      connects.stop();
      await gw.close();
      await sim.close();
    }
  });

  test('an entry whose connect times out costs one connect timeout, not one per request', async () => {
    // A port that accepts TCP and never answers the SASL handshake: the client's connect (which
    // includes authentication) times out, as against a host that drops packets.
    const sockets = new Set<Socket>();
    const silent: Server = createServer((s) => void sockets.add(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const hole = `127.0.0.1:${(silent.address() as { port: number }).port}`;
    const sim = await startSimulator({ brokers: 2, saslPlainUsers: { gw: 'secret' } });
    const sasl = { KAFKA_SASL_MECHANISM: 'PLAIN', KAFKA_SASL_USERNAME: 'gw', KAFKA_SASL_PASSWORD: 'secret' };
    const connects = watchConnects();
    const gw = createKafkaGateway(configFor([hole, address(sim, 0)], { ...sasl, KAFKA_CONNECT_TIMEOUT_MS: '300', KAFKA_RETRIES: '0' }));
    try {
      await gw.ping();
      for (let i = 0; i < 5; i++) {
        await gw.ping();
        ok(await gw.createTopics([{ name: `timeout-${i}`, partitions: 1, replicationFactor: 1 }]));
      }
      assert.equal(connects.to(hole), 1);
    } finally {
      connects.stop();
      await gw.close();
      await sim.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  test('as the only entry, start-up fails clearly (expected: nothing else is known yet)', async () => {
    const sim = await startSimulator({ brokers: 3 });
    const dead = address(sim, 0);
    await sim.stopBroker(0);
    const gw = createKafkaGateway(configFor([dead], { KAFKA_RETRIES: '0' }));
    try {
      await assert.rejects(gw.ping(), (e: KafkaRequestError) => {
        assert.equal(e.kind, 'unavailable');
        assert.equal(e.kafka.name, 'NETWORK_EXCEPTION');
        assert.match(e.kafka.message, new RegExp(`Cannot connect to any broker: Connection to ${dead} failed \\(ECONNREFUSED\\)`));
        return true;
      });
    } finally {
      await gw.close();
      await sim.close();
    }
  });
});

describe('a connection lost under a request', () => {
  let sim: Simulator;
  let gw: PlatformaticKafkaGateway;
  before(async () => {
    sim = await startSimulator({ brokers: 3 });
    gw = createKafkaGateway(configFor(sim.bootstrapServers, { KAFKA_RETRIES: '0' }));
    await gw.ping();
  });
  after(async () => {
    await gw?.close();
    await sim?.close();
  });

  test('a read is asked again of another broker within the same request', async () => {
    ok(await gw.createTopics([{ name: 'reads', partitions: 1, replicationFactor: 1 }]));
    const metadata = sim.faults.add({ apiKey: 3 /* Metadata */, times: 1, drop: 'after' });
    assert.ok((await gw.listTopics()).some((t) => t.name === 'reads'));
    assert.equal(sim.faults.get(metadata.id)!.applied, 1);
    const configs = sim.faults.add({ apiKey: 32 /* DescribeConfigs */, times: 1, drop: 'after' });
    ok(await gw.describeConfigOverrides([{ kind: 'topic', name: 'reads' }], ['retention.ms']));
    assert.equal(sim.faults.get(configs.id)!.applied, 1);
  });

  test('a write that may have been applied is not re-sent elsewhere', async () => {
    const lost = sim.faults.add({ apiKey: 19 /* CreateTopics */, times: 1, drop: 'after' });
    await assert.rejects(gw.createTopics([{ name: 'maybe-applied', partitions: 1, replicationFactor: 1 }]), (e: KafkaRequestError) => {
      assert.equal(e.kind, 'unavailable');
      return true;
    });
    assert.equal(sim.faults.get(lost.id)!.applied, 1);
    assert.ok(sim.model.getTopic('maybe-applied'), 'applied once, by the one request sent');
  });

  test('a write whose connection could not be made goes to another broker', async () => {
    const live = sim.bootstrapServers;
    const spare = await startSimulator({ brokers: 1 });
    const spareAddr = spare.bootstrapServers[0];
    await spare.close(); // a port that refuses connections, listed first
    const fresh = createKafkaGateway(configFor([spareAddr, ...live], { KAFKA_RETRIES: '0' }));
    try {
      ok(await fresh.createTopics([{ name: 'not-delivered-first', partitions: 1, replicationFactor: 1 }]));
    } finally {
      await fresh.close();
    }
  });
});
