// The release check on the real entry point (src/main.ts as a child process, issue 29): in front
// of a Kafka 2.7 cluster it exits 1 naming what it detected; in front of 3.2 it starts, logs the
// release and warns of each degraded feature, and /metrics has kafka_gateway_cluster_info.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { startSimulator } from '../../src/sim/index.js';
import { spawnGateway } from './gateway-process.js';

it('Kafka 2.7: refuses to start, naming the release detected and what it lacks', async () => {
  const sim = await startSimulator({ brokers: 1, kafkaVersion: '2.7' });
  try {
    const gw = spawnGateway({ KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','), GATEWAY_AUTH: 'none' });
    assert.equal(await gw.exited, 1);
    assert.match(gw.output(), /Kafka 2\.7 \(ZooKeeper mode\) detected; the gateway needs Kafka 2\.8 or later/);
    assert.deepEqual(sim.outOfRange, []);
  } finally {
    await sim.close();
  }
});

it('Kafka 3.2 (ZooKeeper): starts; the release in the log, a warning per degraded feature, the metric', async () => {
  const sim = await startSimulator({ brokers: 1, kafkaVersion: '3.2' });
  const gw = spawnGateway({ KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','), GATEWAY_AUTH: 'none' });
  try {
    const url = await gw.url;
    assert.ok(
      gw.logs.some((l) => l.msg === 'kafka release detected' && l.release === '3.2' && l.mode === 'zookeeper'),
      gw.output(),
    );
    assert.ok(
      gw.logs.some((l) => l.level === 'warn' && l.msg === 'kafka feature degraded' && l.feature === 'disk-headroom'),
      gw.output(),
    );
    assert.match(await (await fetch(`${url}/metrics`)).text(), /kafka_gateway_cluster_info\{release="3\.2",mode="zookeeper"\} 1/);
  } finally {
    gw.child.kill('SIGTERM');
    await gw.exited;
    await sim.close();
  }
});
