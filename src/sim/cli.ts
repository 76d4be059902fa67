// `npm run sim -- --brokers 4 --racks a,a,b,b --port 19092`: a simulated cluster on
// loopback until Ctrl-C, for trying clients (kcat -b 127.0.0.1:19092 -L) by hand.
import { parseArgs } from 'node:util';
import { startSimulator } from './index.js';

const { values } = parseArgs({
  options: {
    brokers: { type: 'string', default: '3' },
    racks: { type: 'string' },
    port: { type: 'string' }, // first broker's port; the others follow
    host: { type: 'string', default: '127.0.0.1' },
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

const sim = await startSimulator({ brokers, racks, ports, host: values.host });
console.log(`simulated Kafka cluster ${sim.clusterId} with ${brokers} brokers:`);
for (const e of sim.endpoints()) console.log(`  broker ${e.id} at ${e.host}:${e.port}${e.rack ? ` (rack ${e.rack})` : ''}`);
console.log(`bootstrap servers: ${sim.bootstrapServers.join(',')}`);

const stop = async (): Promise<void> => {
  await sim.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
