// `npm run sim -- --brokers 4 --racks a,a,b,b --port 19092`: a simulated cluster on
// loopback until Ctrl-C, for trying clients (kcat -b 127.0.0.1:19092 -L) by hand.
// `--replication-bytes-per-second N` sets each broker's replication bandwidth (default 50 MiB/s)
// and `--seed-bytes N` gives every new partition N bytes, so reassignments take visible time.
// `--auto-create-topics` sets auto.create.topics.enable=true (Metadata creates unknown topics),
// `--num-partitions N` / `--default-replication-factor N` the brokers' defaults for new topics,
// `--log-dirs /a,/b` every broker's log.dirs (AlterReplicaLogDirs moves replicas between them).
// `--kafka-version 3.7 [--kafka-mode zookeeper|kraft]` answers as that Kafka release (its
// ApiVersions ranges and features; a request outside them closes the connection): default the
// newest release, KRaft (./releases/release.ts).
// `--control-port N` (or SIM_CONTROL_PORT) serves the control API on 127.0.0.1:N (./control.ts):
// `curl -X POST 127.0.0.1:N/brokers/1/stop`, `.../start`, `curl '127.0.0.1:N/state?topic=orders'`.
import { parseArgs } from 'node:util';
import { parseControlPort, startControlServer } from './control.js';
import { startSimulator } from './index.js';
import { kafkaRelease, NEWEST_RELEASE, type KafkaRelease } from './releases/release.js';

const { values } = parseArgs({
  options: {
    brokers: { type: 'string', default: '3' },
    racks: { type: 'string' },
    port: { type: 'string' }, // first broker's port; the others follow
    host: { type: 'string', default: '127.0.0.1' },
    'replication-bytes-per-second': { type: 'string' },
    'seed-bytes': { type: 'string' },
    'control-port': { type: 'string' },
    'auto-create-topics': { type: 'boolean', default: false },
    'num-partitions': { type: 'string' },
    'default-replication-factor': { type: 'string' },
    'log-dirs': { type: 'string' },
    'kafka-version': { type: 'string' },
    'kafka-mode': { type: 'string' },
  },
});

const brokers = Number(values.brokers);
if (!Number.isInteger(brokers) || brokers < 1 || brokers > 100) {
  console.error('--brokers must be a whole number from 1 to 100');
  process.exit(2);
}
const racks = values.racks ? values.racks.split(',').map((r) => r.trim() || null) : undefined;
if (racks && racks.length !== brokers) {
  console.error(`--racks names ${racks.length} racks for ${brokers} brokers`);
  process.exit(2);
}
const firstPort = values.port ? Number(values.port) : 0;
const ports = firstPort ? Array.from({ length: brokers }, (_, i) => firstPort + i) : undefined;

function byteCount(flag: string, raw: string | undefined, min: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min) {
    console.error(`--${flag} must be a whole number of bytes, at least ${min}`);
    process.exit(2);
  }
  return n;
}
const replicationBytesPerSecond = byteCount('replication-bytes-per-second', values['replication-bytes-per-second'], 1);
const seedBytes = byteCount('seed-bytes', values['seed-bytes'], 0);

function positiveInt(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 10000) {
    console.error(`--${flag} must be a whole number from 1 to 10000`);
    process.exit(2);
  }
  return n;
}
const numPartitions = positiveInt('num-partitions', values['num-partitions']);
const defaultReplicationFactor = positiveInt('default-replication-factor', values['default-replication-factor']);

const kafkaMode = values['kafka-mode'];
if (kafkaMode !== undefined && kafkaMode !== 'zookeeper' && kafkaMode !== 'kraft') {
  console.error('--kafka-mode must be zookeeper or kraft');
  process.exit(2);
}
let release: KafkaRelease;
try {
  release = kafkaRelease(values['kafka-version'] ?? NEWEST_RELEASE, kafkaMode);
} catch (err) {
  console.error(`--kafka-version: ${(err as Error).message}`);
  process.exit(2);
}

const controlPort = parseControlPort(values['control-port'] ?? process.env.SIM_CONTROL_PORT);
if (typeof controlPort === 'object') {
  console.error(`--control-port / SIM_CONTROL_PORT: ${controlPort.error}`);
  process.exit(2);
}

const sim = await startSimulator({
  brokers,
  racks,
  ports,
  host: values.host,
  replicationBytesPerSecond,
  seedBytes,
  autoCreateTopicsEnable: values['auto-create-topics'],
  numPartitions,
  defaultReplicationFactor,
  kafkaVersion: release.version,
  kafkaMode: release.mode,
  ...(values['log-dirs'] !== undefined && { logDirs: values['log-dirs'].split(',').map((d) => d.trim()) }),
});
const control = controlPort === undefined ? null : await startControlServer(sim, { port: controlPort });
console.log(
  `simulated Kafka ${release.version} (${release.mode === 'kraft' ? 'KRaft' : 'ZooKeeper'} mode) cluster ${sim.clusterId} with ${brokers} brokers:`,
);
for (const e of sim.endpoints()) console.log(`  broker ${e.id} at ${e.host}:${e.port}${e.rack ? ` (rack ${e.rack})` : ''}`);
console.log(`bootstrap servers: ${sim.bootstrapServers.join(',')}`);
if (control)
  console.log(
    `control API: ${control.url} (POST /brokers/{id}/stop, POST /brokers/{id}/start, GET /state?topic=..., POST/GET/DELETE /faults)`,
  );

const stop = async (): Promise<void> => {
  await control?.close();
  await sim.close();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
