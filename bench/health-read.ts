// The health interlocks' read at scale (issue 30): one Metadata request of every topic with
// ISRs (the gateway's describeReplicaHealth over the wire, decoding included) and the walk that
// judges it (assessHealth), on simulated clusters of 1k, 10k and 100k partitions (RF 3, 12
// brokers), once healthy and once with a broker stopped (a third of the partitions short of a
// replica). Figures: min / median / max of REPS repetitions, and the heap allocated per read.
//
//   npx tsx bench/health-read.ts            (HEALTH_SIZES=1000,10000 REPS=5)
import { performance } from 'node:perf_hooks';
import { createKafkaGateway } from '../src/kafka/admin.js';
import { parseKafkaConfig } from '../src/kafka/config.js';
import { assessHealth, minIsrCandidates } from '../src/domain/reassignment/health.js';
import { startSimulator } from '../src/sim/index.js';

const SIZES = (process.env.HEALTH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const REPS = Number(process.env.REPS ?? 5);
const BROKERS = 12;
const PER_TOPIC = 1000;

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `${s[0].toFixed(1)} / ${s[Math.floor(s.length / 2)].toFixed(1)} / ${s[s.length - 1].toFixed(1)}`;
};

for (const size of SIZES) {
  const sim = await startSimulator({ brokers: BROKERS });
  for (let t = 0; t < size / PER_TOPIC; t++) {
    sim.model.createTopic({
      name: `t${t}`,
      assignments: Array.from({ length: PER_TOPIC }, (_, p) => ({
        partition: p,
        brokerIds: [p % BROKERS, (p + 1) % BROKERS, (p + 2) % BROKERS],
      })),
    });
  }
  const kafka = createKafkaGateway(
    parseKafkaConfig({ KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','), KAFKA_REQUEST_TIMEOUT_MS: '120000' }),
  );
  for (const label of ['healthy', 'broker 11 stopped']) {
    if (label !== 'healthy') await sim.stopBroker(11);
    const read: number[] = [];
    const walk: number[] = [];
    const heap: number[] = [];
    let troubles = '';
    for (let i = 0; i < REPS + 1; i++) {
      const h0 = process.memoryUsage().heapUsed;
      const t0 = performance.now();
      const md = await kafka.describeReplicaHealth();
      const t1 = performance.now();
      minIsrCandidates(md.topics);
      const health = assessHealth({ topics: md.topics, liveBrokers: new Set(md.brokers), minIsr: new Map(), moving: () => false });
      const t2 = performance.now();
      if (i === 0) continue; // warm-up
      read.push(t1 - t0);
      walk.push(t2 - t1);
      heap.push((process.memoryUsage().heapUsed - h0) / 1024 / 1024);
      troubles = health.troubles.map((x) => `${x.kind} ${x.count}`).join(', ') || 'none';
    }
    console.log(
      `${size} partitions, ${label}: read ${stats(read)} ms, walk ${stats(walk)} ms, heap growth ${stats(heap)} MiB; trouble: ${troubles}`,
    );
  }
  await kafka.close();
  await sim.close();
}
