// What does the HTTP gateway cost on top of the Kafka layer it wraps?
//
// The same operations, against the same simulated cluster, in one run:
//   direct  = src/kafka's KafkaGateway called in-process (the baseline)
//   gateway = the express app over HTTP on loopback (validation, error mapping, metrics)
// and the ratio gateway/direct per operation. Ratios, not absolute times, are the
// result: they hold across machines where absolute numbers do not.
//
//   npm run bench:overhead                  (ITERATIONS=300 by default)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSimulator } from '../src/sim/index.js';
import { createKafkaGateway } from '../src/kafka/admin.js';
import { parseKafkaConfig } from '../src/kafka/config.js';
import { createApp } from '../src/http/app.js';
import type { KafkaGateway } from '../src/kafka/types.js';

const ITERATIONS = Number(process.env.ITERATIONS ?? 300);
const WARMUP = Math.max(50, Math.floor(ITERATIONS / 5));

interface Op {
  name: string;
  direct: (i: number) => Promise<unknown>;
  viaHttp: (i: number) => Promise<unknown>;
}

async function time(fn: (i: number) => Promise<unknown>, n: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await fn(i);
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return samples;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function expectOk(res: Response, status: number): Promise<void> {
  if (res.status !== status) throw new Error(`${res.url}: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
}

async function main(): Promise<void> {
  const sim = await startSimulator({ brokers: 3 });
  const kafka: KafkaGateway = createKafkaGateway(parseKafkaConfig({ KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(',') }));
  const app = createApp({ kafka });
  const server = http.createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const json = { 'content-type': 'application/json' };
  await kafka.createTopics([{ name: 'bench-described', partitions: 12, replicationFactor: 3 }]);

  const ops: Op[] = [
    {
      name: 'describe cluster',
      direct: () => kafka.describeCluster(),
      viaHttp: async () => expectOk(await fetch(`${base}/cluster`), 200),
    },
    {
      name: 'describe topic (12 partitions)',
      direct: () => kafka.describeTopic('bench-described'),
      viaHttp: async () => expectOk(await fetch(`${base}/topics/bench-described`), 200),
    },
    {
      name: 'create + delete topic',
      direct: async (i) => {
        const name = `bench-direct-${i}`;
        const [created] = await kafka.createTopics([{ name, partitions: 3, replicationFactor: 2 }]);
        if (!created?.ok) throw new Error(`create ${name} failed`);
        const [deleted] = await kafka.deleteTopics([name]);
        if (!deleted?.ok) throw new Error(`delete ${name} failed`);
      },
      viaHttp: async (i) => {
        const name = `bench-http-${i}`;
        await expectOk(await fetch(`${base}/topics`, { method: 'POST', headers: json, body: JSON.stringify({ name, partitions: 3, replicationFactor: 2 }) }), 201);
        await expectOk(await fetch(`${base}/topics/${name}`, { method: 'DELETE' }), 204);
      },
    },
  ];

  console.log(`bench/overhead: ${ITERATIONS} iterations per operation after ${WARMUP} warm-up, median latency`);
  console.log('operation                       direct ms   gateway ms   ratio');
  for (const op of ops) {
    // Interleave warm-up of both paths, then measure each: the JIT and the connection
    // pools are warm for both before any sample counts.
    await time((i) => op.direct(i + 1_000_000), WARMUP);
    await time((i) => op.viaHttp(i + 1_000_000), WARMUP);
    const direct = median(await time(op.direct, ITERATIONS));
    const viaHttp = median(await time(op.viaHttp, ITERATIONS));
    console.log(`${op.name.padEnd(31)} ${direct.toFixed(3).padStart(9)}   ${viaHttp.toFixed(3).padStart(10)}   ${(viaHttp / direct).toFixed(2).padStart(5)}x`);
  }

  await new Promise<void>((r) => server.close(() => r()));
  await kafka.close();
  await sim.close();
}

await main();
