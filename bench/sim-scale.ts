// The simulator at the size of issue 8: clusters of 1k, 10k and 100k partitions with every
// partition moving (throttled, seeded so nothing finishes during the run), timed over the wire:
//   Metadata (all topics, v12), ListPartitionReassignments (all, v0), DescribeLogDirs (every
//   moving partition on one broker, v4), DescribeLogDirs naming 1,000 partitions (the first
//   topic, v4: what the gateway asks each broker for one page; its answer is the same size at
//   every cluster size, so its ratio is median ÷ median, flat ≈ 1), AlterPartitionReassignments
//   (start moving all, v0),
// plus, in the model without the wire, creating the cluster, the used bytes of every log dir of
// the 12 brokers while everything moves (DescribeLogDirs's usable_bytes: the kept sums, and the
// walk of every replica they replaced, printed as walk ÷ sums), and settling every move's
// catch-up (a hand-driven clock jumps past all completions, each one a separate event).
//
// Each request is timed from writing its (pre-encoded) frame to receiving the last byte of the
// answer on a kept-open connection: the simulator's work plus loopback, not a client's decoding.
// Every figure is min/median/max over REPS repetitions, with the per-partition growth ratio
// against 1k (median ÷ median; linear ≈ 1): wall time, CPU time of this process (the simulator
// runs in it) and the longest event-loop block during the request, measured by a 1 ms
// setInterval drift probe (the longest gap between two turns of the simulator's own loop: what
// every other connection to the simulator waits at worst). monitorEventLoopDelay's max over each
// size's requests is printed too.
//
//   npm run bench:sim-scale                 (SIM_SCALE_SIZES=1000,10000 SIM_SCALE_BROKERS=12 REPS=5)
import net from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setImmediate as tick } from 'node:timers/promises';
import { ManualClock, startSimulator, type Simulator } from '../src/sim/index.js';
import { ClusterModel } from '../src/sim/cluster/model.js';
import { Reader, Writer } from '../src/sim/protocol/buffers.js';
import { decode, encode, isFlexibleVersion } from '../src/sim/protocol/codec.js';
import { ALL_SCHEMAS, RequestHeaderSchema, ResponseHeaderSchema } from '../src/sim/protocol/messages.generated.js';
import type { MessageSchema } from '../src/sim/protocol/schema.js';

const SIZES = (process.env.SIM_SCALE_SIZES ?? '1000,10000,100000').split(',').map(Number);
const BROKERS = Number(process.env.SIM_SCALE_BROKERS ?? 12);
const REPS = Number(process.env.REPS ?? 5);
const PARTITIONS_PER_TOPIC = 1000;
const RF = 3;
const GiB = 1024 ** 3;

function schemaFor(apiKey: number, kind: 'Request' | 'Response'): MessageSchema {
  const s = ALL_SCHEMAS.find((x) => x.apiKey === apiKey && x.name.endsWith(kind));
  if (!s) throw new Error(`no schema for ${apiKey}`);
  return s;
}

function frame(apiKey: number, version: number, body: unknown, correlationId: number): Buffer {
  const req = schemaFor(apiKey, 'Request');
  const w = new Writer().int32(0);
  encode(
    RequestHeaderSchema,
    isFlexibleVersion(req, version) ? 2 : 1,
    { requestApiKey: apiKey, requestApiVersion: version, correlationId, clientId: 'sim-scale' },
    w,
  );
  encode(req, version, body, w);
  const out = w.toBuffer();
  out.writeInt32BE(out.length - 4, 0);
  return out;
}

function decodeResponse<T>(apiKey: number, version: number, answer: Buffer): T {
  const res = schemaFor(apiKey, 'Response');
  const r = new Reader(answer);
  decode(ResponseHeaderSchema, isFlexibleVersion(res, version) ? 1 : 0, r);
  return decode<T>(res, version, r);
}

/** The fields of AlterPartitionReassignments v0's answer (key 45) that the run checks. */
interface AlterReassignmentsAnswer {
  responses: { partitions: { errorCode: number }[] }[];
}

/** The fields of ListPartitionReassignments v0's answer (key 46) that the run checks. */
interface ListReassignmentsAnswer {
  topics: { partitions: unknown[] }[];
}

/** One kept-open connection; requests one at a time, answers as raw frames. */
/** Longest gap between turns of the event loop since reset(): a 1 ms setInterval probe. */
class BlockProbe {
  private last = performance.now();
  private longest = 0;
  private readonly timer = setInterval(() => this.mark(), 1);

  private mark(): void {
    const now = performance.now();
    this.longest = Math.max(this.longest, now - this.last);
    this.last = now;
  }

  reset(): void {
    this.last = performance.now();
    this.longest = 0;
  }

  /** The longest block since reset(), the running turn included. */
  read(): number {
    this.mark();
    return this.longest;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

const probe = new BlockProbe();

class Connection {
  private socket!: net.Socket;
  private acc: Buffer[] = [];
  private accBytes = 0;
  private waiting: ((b: Buffer) => void) | null = null;

  static async open(port: number): Promise<Connection> {
    const c = new Connection();
    await new Promise<void>((resolve, reject) => {
      c.socket = net.connect(port, '127.0.0.1', resolve);
      c.socket.once('error', reject);
    });
    c.socket.setNoDelay(true);
    c.socket.on('data', (d) => c.onData(d));
    return c;
  }

  private onData(d: Buffer): void {
    this.acc.push(d);
    this.accBytes += d.length;
    if (this.accBytes < 4) return;
    const head = this.acc[0].length >= 4 ? this.acc[0] : Buffer.concat(this.acc, this.accBytes);
    const size = head.readInt32BE(0);
    if (this.accBytes < 4 + size) return; // joined once complete, not on every chunk
    const all = this.acc.length === 1 ? this.acc[0] : Buffer.concat(this.acc, this.accBytes);
    this.acc = [];
    this.accBytes = 0;
    const w = this.waiting;
    this.waiting = null;
    w?.(all.subarray(4, 4 + size));
  }

  /** Sends a frame; resolves with the answer, the ms to its last byte and the CPU ms spent meanwhile. */
  send(bytes: Buffer): Promise<{ answer: Buffer; ms: number; cpuMs: number; blockMs: number }> {
    return new Promise((resolve) => {
      const start = performance.now();
      const cpu = process.cpuUsage();
      probe.reset();
      this.waiting = (answer) => {
        const used = process.cpuUsage(cpu);
        resolve({ answer, ms: performance.now() - start, cpuMs: (used.user + used.system) / 1000, blockMs: probe.read() });
      };
      this.socket.write(bytes);
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

interface Stats {
  min: number;
  median: number;
  max: number;
}

function stats(values: number[]): Stats {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return { min: s[0], median: s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2, max: s[s.length - 1] };
}

function placement(i: number): { replicas: number[]; target: number[] } {
  const first = (i * 7 + Math.floor(i / PARTITIONS_PER_TOPIC)) % BROKERS;
  const replicas = Array.from({ length: RF }, (_, k) => (first + k) % BROKERS);
  // Move the last replica to the next broker outside the set: one adding, one removing.
  const target = [...replicas.slice(0, RF - 1), (first + RF) % BROKERS];
  return { replicas, target };
}

function topicName(t: number): string {
  return `scale-${String(t).padStart(4, '0')}`;
}

function createCluster(model: ClusterModel, partitions: number): void {
  for (let t = 0; t * PARTITIONS_PER_TOPIC < partitions; t++) {
    const count = Math.min(PARTITIONS_PER_TOPIC, partitions - t * PARTITIONS_PER_TOPIC);
    model.createTopic({
      name: topicName(t),
      assignments: Array.from({ length: count }, (_, p) => ({ partition: p, brokerIds: placement(t * PARTITIONS_PER_TOPIC + p).replicas })),
    });
  }
}

function byTopic<T>(partitions: number, item: (topic: number, partition: number, i: number) => T): { topic: string; items: T[] }[] {
  const out: { topic: string; items: T[] }[] = [];
  for (let i = 0; i < partitions; i++) {
    const t = Math.floor(i / PARTITIONS_PER_TOPIC);
    if (i % PARTITIONS_PER_TOPIC === 0) out.push({ topic: topicName(t), items: [] });
    out[out.length - 1].items.push(item(t, i % PARTITIONS_PER_TOPIC, i));
  }
  return out;
}

type Op =
  | 'create cluster'
  | 'Metadata'
  | 'ListPartitionReassignments'
  | 'DescribeLogDirs'
  | 'DescribeLogDirs 1k'
  | 'AlterPartitionReassignments'
  | 'used bytes, all brokers'
  | 'used bytes walk, all brokers'
  | 'settle all completions';
const OPS: Op[] = [
  'create cluster',
  'Metadata',
  'ListPartitionReassignments',
  'DescribeLogDirs',
  'DescribeLogDirs 1k',
  'AlterPartitionReassignments',
  'used bytes, all brokers',
  'used bytes walk, all brokers',
  'settle all completions',
];
/** Operations whose work should not grow with the cluster: their ratio is median ÷ median. */
const FIXED_SIZE: ReadonlySet<Op> = new Set<Op>(['DescribeLogDirs 1k', 'used bytes, all brokers']);

interface SizeResult {
  size: number;
  ms: Map<Op, number[]>;
  cpuMs: Map<Op, number[]>;
  blockMs: Map<Op, number[]>;
  bytes: Map<Op, number>;
  maxLoopStallMs: number;
}

async function measureWire(size: number): Promise<SizeResult> {
  const ms = new Map<Op, number[]>(OPS.map((o) => [o, []]));
  const cpuMs = new Map<Op, number[]>(OPS.map((o) => [o, []]));
  const blockMs = new Map<Op, number[]>(OPS.map((o) => [o, []]));
  const timed = (op: Op, f: () => void): void => {
    const start = performance.now();
    const cpu = process.cpuUsage();
    f();
    const used = process.cpuUsage(cpu);
    ms.get(op)!.push(performance.now() - start);
    cpuMs.get(op)!.push((used.user + used.system) / 1000);
    blockMs.get(op)!.push(performance.now() - start); // synchronous: one block
  };
  const record = (op: Op, r: { ms: number; cpuMs: number; blockMs: number }): void => {
    ms.get(op)!.push(r.ms);
    cpuMs.get(op)!.push(r.cpuMs);
    blockMs.get(op)!.push(r.blockMs);
  };
  const bytes = new Map<Op, number>();
  const sim: Simulator = await startSimulator({ brokers: BROKERS, seedBytes: GiB });
  try {
    for (let rep = 0; rep < REPS; rep++) {
      const model = new ClusterModel({
        brokers: Array.from({ length: BROKERS }, (_, id) => ({ id, rack: null })),
        clock: new ManualClock(),
      });
      timed('create cluster', () => createCluster(model, size));
    }
    createCluster(sim.model, size);
    // Throttle every move (as the gateway does) so the copies run at 1 MiB/s per broker.
    for (const b of sim.endpoints()) {
      sim.model.incrementalAlterConfigs({ type: 4, name: String(b.id) }, [
        { name: 'leader.replication.throttled.rate', op: 0, value: String(1024 * 1024) },
        { name: 'follower.replication.throttled.rate', op: 0, value: String(1024 * 1024) },
      ]);
    }
    const controller = sim.endpoints().find((e) => e.id === sim.model.controllerId)!;
    const conn = await Connection.open(controller.port);
    let correlationId = 0;
    const alterFrame = frame(
      45,
      0,
      {
        timeoutMs: 60_000,
        topics: byTopic(size, (t, p, i) => ({ partitionIndex: p, replicas: placement(i).target })).map((x) => ({
          name: x.topic,
          partitions: x.items,
        })),
      },
      ++correlationId,
    );
    const cancelFrame = frame(
      45,
      0,
      {
        timeoutMs: 60_000,
        topics: byTopic(size, (t, p) => ({ partitionIndex: p, replicas: null })).map((x) => ({ name: x.topic, partitions: x.items })),
      },
      ++correlationId,
    );
    const metadataFrame = frame(
      3,
      12,
      { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false },
      ++correlationId,
    );
    const listFrame = frame(46, 0, { timeoutMs: 60_000, topics: null }, ++correlationId);
    const logDirsFrame = frame(
      35,
      4,
      { topics: byTopic(size, (t, p) => p).map((x) => ({ topic: x.topic, partitions: x.items })) },
      ++correlationId,
    );
    const logDirs1kFrame = frame(
      35,
      4,
      { topics: byTopic(Math.min(size, 1000), (t, p) => p).map((x) => ({ topic: x.topic, partitions: x.items })) },
      ++correlationId,
    );

    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    for (let rep = 0; rep < REPS; rep++) {
      const altered = await conn.send(alterFrame);
      record('AlterPartitionReassignments', altered);
      bytes.set('AlterPartitionReassignments', altered.answer.length);
      if (rep === 0) {
        const res = decodeResponse<AlterReassignmentsAnswer>(45, 0, altered.answer);
        const failed = res.responses.flatMap((t) => t.partitions).filter((p) => p.errorCode !== 0).length;
        if (failed > 0) throw new Error(`${failed} partitions refused`);
        if (sim.model.movingPartitionCount() !== size) throw new Error(`expected ${size} moving, got ${sim.model.movingPartitionCount()}`);
      }
      await tick();
      for (const [op, f] of [
        ['Metadata', metadataFrame],
        ['ListPartitionReassignments', listFrame],
        ['DescribeLogDirs', logDirsFrame],
        ['DescribeLogDirs 1k', logDirs1kFrame],
      ] as const) {
        const r = await conn.send(f);
        record(op, r);
        bytes.set(op, r.answer.length);
        if (rep === 0 && op === 'ListPartitionReassignments') {
          const res = decodeResponse<ListReassignmentsAnswer>(46, 0, r.answer);
          const listed = res.topics.reduce((n, t) => n + t.partitions.length, 0);
          if (listed !== size) throw new Error(`listed ${listed} moving partitions, expected ${size}`);
        }
        await tick();
      }
      // The model alone, every partition moving: the sums DescribeLogDirs reads, and the walk.
      const dirs = () => () => 0; // one log dir: every replica in dir 0
      timed('used bytes, all brokers', () => {
        for (const b of sim.endpoints()) sim.model.logDirUsedBytesByDir(b.id);
      });
      timed('used bytes walk, all brokers', () => {
        for (const b of sim.endpoints()) sim.model.logDirUsedBytesByDirWalk(b.id, dirs, 1);
      });
      await tick();
      await conn.send(cancelFrame); // back to the original replicas for the next repetition
      await tick();
    }
    loop.disable();
    conn.close();

    // Catch-up events: every move completes at its own time (sizes differ per partition).
    for (let rep = 0; rep < REPS; rep++) {
      const clock = new ManualClock();
      const model = new ClusterModel({
        brokers: Array.from({ length: BROKERS }, (_, id) => ({ id, rack: null })),
        clock,
        seedBytes: (topic, p) => (1 + (p % 97)) * 1024 * 1024,
      });
      createCluster(model, size);
      for (const x of byTopic(size, (t, p, i) => ({ p, target: placement(i).target }))) {
        for (const { p, target } of x.items) model.alterPartitionReassignment(x.topic, p, target);
      }
      let left = -1;
      timed('settle all completions', () => {
        clock.advance(24 * 3600 * 1000);
        left = model.movingPartitionCount();
      });
      if (left !== 0) throw new Error(`${left} moves did not complete`);
      await tick();
    }
    return { size, ms, cpuMs, blockMs, bytes, maxLoopStallMs: loop.max / 1e6 };
  } finally {
    await sim.close();
  }
}

async function main(): Promise<void> {
  const began = performance.now();
  console.log(
    `sim-scale: ${BROKERS} brokers, RF ${RF}, ${PARTITIONS_PER_TOPIC} partitions per topic, every partition moving; ${REPS} repetitions (node ${process.version})`,
  );
  await measureWire(Math.min(1000, SIZES[0])); // warm-up: JIT and sockets
  const results: SizeResult[] = [];
  for (const size of SIZES) {
    results.push(await measureWire(size));
    if (global.gc) global.gc();
  }
  const base = results[0];
  const fmt = (x: Stats): string => `${x.min.toFixed(1)} / ${x.median.toFixed(1)} / ${x.max.toFixed(1)}`;
  console.log('');
  console.log(
    `min / median / max over ${REPS} repetitions (ms); cpu = CPU time of this process meanwhile; block = longest event-loop block during the request`,
  );
  console.log(
    `ratio = per-partition median at this size ÷ at ${base.size} (wall, cpu, block; linear ≈ 1); for ${[...FIXED_SIZE].join(', ')}: median ÷ median (flat ≈ 1)`,
  );
  console.log(
    `${'operation'.padEnd(28)} ${'partitions'.padStart(10)} ${'wall ms'.padStart(24)} ${'cpu ms'.padStart(24)} ${'block ms'.padStart(24)} ${'answer bytes'.padStart(13)}  ratio`,
  );
  for (const op of OPS) {
    for (const r of results) {
      const w = stats(r.ms.get(op)!);
      const c = stats(r.cpuMs.get(op)!);
      const k = stats(r.blockMs.get(op)!);
      const per = FIXED_SIZE.has(op) ? 1 : r.size / base.size;
      const ratio = (m: Map<Op, number[]>): string => (stats(m.get(op)!).median / per / stats(baseOf(m)).median).toFixed(2);
      const baseOf = (m: Map<Op, number[]>): number[] => (m === r.ms ? base.ms : m === r.cpuMs ? base.cpuMs : base.blockMs).get(op)!;
      const answer = r.bytes.get(op);
      console.log(
        `${op.padEnd(28)} ${String(r.size).padStart(10)} ${fmt(w).padStart(24)} ${fmt(c).padStart(24)} ${fmt(k).padStart(24)} ` +
          `${(answer === undefined ? '' : String(answer)).padStart(13)}  ${ratio(r.ms)}, ${ratio(r.cpuMs)}, ${ratio(r.blockMs)}`,
      );
    }
  }
  console.log('');
  for (const r of results) {
    const ratio = stats(r.cpuMs.get('used bytes walk, all brokers')!).median / stats(r.cpuMs.get('used bytes, all brokers')!).median;
    console.log(`used bytes of ${BROKERS} brokers at ${r.size} partitions: walk ÷ kept sums (cpu medians) ${ratio.toFixed(1)}`);
  }
  for (const r of results)
    console.log(`longest event-loop stall during the ${r.size}-partition requests: ${r.maxLoopStallMs.toFixed(0)} ms`);
  console.log(`total ${((performance.now() - began) / 1000).toFixed(1)} s`);
  probe.stop();
}

await main();
