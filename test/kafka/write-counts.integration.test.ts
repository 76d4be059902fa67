// The shared recent reads (src/kafka/recent-read.ts) against the simulator over TCP: a write this
// gateway sent and Kafka answered shows in the very next read, whoever sent it through the
// KafkaAdmin (a service, the reconciler, a test), since the gateway itself counts its writes.
// A stale read would still be within POLLED_READ_MAX_AGE_MS here (no clock advances between).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createKafkaGateway, type PlatformaticKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { movesRead } from '../../src/reconcile/moves-read.js';
import { createReassignmentRuntime, loadReassignmentConfig, type ReassignmentRuntime } from '../../src/reconcile/index.js';
import { ManualClock, startSimulator, type Simulator } from '../../src/sim/index.js';
import { FAST_KAFKA_ENV } from '../http/helpers.js';

const RATE = 'leader.replication.throttled.rate';

let sim: Simulator;
let kafka: PlatformaticKafkaGateway;
let runtime: ReassignmentRuntime;
before(async () => {
  sim = await startSimulator({ brokers: 3, clock: new ManualClock() });
  kafka = createKafkaGateway(parseKafkaConfig({ ...FAST_KAFKA_ENV, KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(',') }));
  const [r] = await kafka.createTopics([{ name: 'wc', assignments: [[0, 1]] }]);
  assert.ok(r?.ok);
  // Bytes to copy: with the manual clock a started move stays in flight.
  sim.seedBytes('wc', 0, 10_000);
  runtime = createReassignmentRuntime({ kafka, config: loadReassignmentConfig({}) });
});
after(async () => {
  await runtime?.reconciler.stop();
  await kafka?.close();
  await sim?.close();
});

describe('a write sent straight through the KafkaAdmin', () => {
  it('AlterPartitionReassignments: the shared read of what moves (GET /reassignments, the passes) reads anew', async () => {
    const moves = movesRead(kafka);
    assert.deepEqual(await moves.get(), []);
    const [started] = await kafka.alterPartitionReassignments([{ topic: 'wc', partition: 0, replicas: [2, 1] }]);
    assert.ok(started?.ok);
    assert.deepEqual(await moves.get(), [{ topic: 'wc', partition: 0, replicas: [2, 1, 0], adding: [2], removing: [0] }]);
    const [cancelled] = await kafka.alterPartitionReassignments([{ topic: 'wc', partition: 0, replicas: null }]);
    assert.ok(cancelled?.ok);
    assert.deepEqual(await moves.get(), []);
  });

  it('IncrementalAlterConfigs: the shared read of every throttle config (GET /throttles) reads anew', async () => {
    const rateOf = async (broker: number) => (await runtime.throttles.list()).rates.find((r) => r.broker === broker)?.leaderRate ?? null;
    assert.equal(await rateOf(1), null);
    const [set] = await kafka.incrementalAlterConfigs([{ kind: 'broker', name: '1', ops: [{ name: RATE, op: 'SET', value: '4096' }] }]);
    assert.ok(set?.ok);
    assert.equal(await rateOf(1), 4096);
    const [removed] = await kafka.incrementalAlterConfigs([{ kind: 'broker', name: '1', ops: [{ name: RATE, op: 'DELETE' }] }]);
    assert.ok(removed?.ok);
    assert.equal(await rateOf(1), null);
  });

  it('counts what the gateways made from it send (interactive()); a validateOnly write changes nothing', async () => {
    const configs = kafka.writeVersion('configs');
    const [checked] = await kafka.incrementalAlterConfigs(
      [{ kind: 'broker', name: '2', ops: [{ name: RATE, op: 'SET', value: '1' }] }],
      true,
    );
    assert.ok(checked?.ok);
    assert.equal(kafka.writeVersion('configs'), configs, 'validateOnly: nothing written');
    const moves = kafka.writeVersion('reassignments');
    // Refused per partition (no move in progress to cancel): counted all the same, as is any answer.
    const [refused] = await kafka.interactive().alterPartitionReassignments([{ topic: 'wc', partition: 0, replicas: null }]);
    assert.equal(refused?.ok, false);
    assert.equal(kafka.writeVersion('reassignments'), moves + 1);
    assert.equal(kafka.interactive().writeVersion('reassignments'), moves + 1);
    assert.equal(kafka.writeVersion('configs'), configs);
  });
});
