// The simulated cluster and the gateway instances of one chaos run, all in this process: one
// Simulator (its own loopback ports), and per instance slot an incarnation at a time, each with
// its own Kafka connections (createKafkaGateway, its own client id = its GATEWAY_INSTANCE_ID),
// its own reassignment runtime (state store, throttle sync, reconciler) and HTTP app, built as
// src/main.ts builds them, inside its clock skew's async context (./clock.ts).
//
// A kill is abrupt: the simulator cuts the incarnation's client id off (its connections close
// unanswered, and every later request it sends is refused: its writes in flight never land),
// its reconciler's timers stop, and the harness ignores whatever its code still answers. Its
// JavaScript may still be running (in-process), but nothing it does reaches the cluster any
// more, which is what a dead process looks like from the cluster. A restart is a new
// incarnation (a new instance id, as a re-created pod) in the same slot, with the slot's clock.
//
// A pause holds the instance's Kafka requests: a delay fault on every API it calls, matched on
// its client id, armed for the pause's length (each request arriving meanwhile waits that long:
// as a long GC pause or a frozen VM would hold them, roughly).
import './shared-validator.js'; // before src/http: one request validator for every app
import type { IncomingMessage, ServerResponse } from 'node:http';
import request from 'supertest';
import type { Express } from 'express';
import { realNow, withSkew } from './clock.js';
import { appOverKafka } from '../http/app-over-kafka.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { createReassignmentMetrics } from '../../src/observability/reassignment-metrics.js';
import { createKafkaGateway, type PlatformaticKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { createReassignmentRuntime, type ReassignmentRuntime } from '../../src/reconcile/index.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { effectiveRequestTimeout, instanceConfig, kafkaEnv } from './config.js';
import { Journal } from './journal.js';
import { GATEWAY_APIS, type ChaosSchedule } from './schedule.js';

export interface Incarnation {
  slot: number;
  /** GATEWAY_INSTANCE_ID and Kafka client id: gw<slot> (first start), gw<slot>r<n> (restarts). */
  id: string;
  skewMs: number;
  kafka: PlatformaticKafkaGateway;
  runtime: ReassignmentRuntime;
  app: Express;
  /** Real time it was killed; null while alive. */
  killedAt: number | null;
  /** Resolves when it is killed (a client waiting on it sees its connection reset then). */
  died: Promise<void>;
  markDead: () => void;
  /** Warnings and errors it logged (a failing seed's trace shows the last ones). */
  log: string[];
}

export class ChaosCluster {
  readonly sim: Simulator;
  readonly schedule: ChaosSchedule;
  readonly journal: Journal;
  /** KAFKA_REQUEST_TIMEOUT_MS of every instance (effectiveRequestTimeout). */
  readonly requestTimeoutMs: number;
  /** Why the schedule's request timeout was not used, or null. */
  readonly requestTimeoutRefused: string | null;
  /** The current incarnation of each slot (dead ones stay until restarted). */
  readonly slots: Incarnation[] = [];
  /** Every incarnation ever started, for closing them all. */
  readonly all: Incarnation[] = [];
  #restarts = 0;
  readonly #timers = new Set<NodeJS.Timeout>();
  /**
   * Real time the last request held by a delay fault is released (then handled, unless its
   * connection went meanwhile): until then a request sent during the faults can still land.
   */
  delayedUntil = 0;
  readonly #offApplied: () => void;

  private constructor(sim: Simulator, schedule: ChaosSchedule, requestTimeout: { ms: number; refused: string | null }) {
    this.sim = sim;
    this.schedule = schedule;
    this.journal = new Journal(sim);
    this.#offApplied = sim.faults.onApplied((e) => {
      if (e.fault.delayMs) this.delayedUntil = Math.max(this.delayedUntil, realNow() + e.fault.delayMs);
    });
    this.requestTimeoutMs = requestTimeout.ms;
    this.requestTimeoutRefused = requestTimeout.refused;
  }

  /** The simulator with the schedule's topics and foreign throttles, and one incarnation per slot. */
  static async start(schedule: ChaosSchedule): Promise<ChaosCluster> {
    const t = schedule.tuning;
    const requestTimeout = effectiveRequestTimeout(schedule);
    const sim = await startSimulator({ brokers: t.brokers, replicationBytesPerSecond: t.replicationBytesPerSecond, isrJoinRoundTripMs: 5 });
    const c = new ChaosCluster(sim, schedule, requestTimeout);
    try {
      for (const topic of schedule.topics) {
        const assignments = topic.assignments.map((brokerIds, partition) => ({ partition, brokerIds }));
        sim.model.createTopic({ name: topic.name, assignments });
        topic.bytes.forEach((b, p) => b > 0 && sim.seedBytes(topic.name, p, b));
      }
      const f = schedule.foreign;
      const set = (name: string, value: string) => [{ name, op: 0, value }];
      sim.model.incrementalAlterConfigs({ type: 4, name: String(f.broker) }, set('leader.replication.throttled.rate', f.rate));
      sim.model.incrementalAlterConfigs({ type: 2, name: f.topic }, set('follower.replication.throttled.replicas', f.replicas));
      for (let slot = 0; slot < schedule.skews.length; slot++) c.slots.push(c.#incarnation(slot, `gw${slot}`));
      // Each instance has read the state topic (the first one creates it) before the schedule
      // starts; on a busy machine a first read may time out (no fault is armed yet): read again.
      for (const inst of c.slots) {
        for (let attempt = 1; ; attempt++) {
          try {
            await withSkew(inst.skewMs, () => inst.runtime.store.refresh());
            break;
          } catch (err) {
            if (attempt >= 20) throw err;
          }
        }
      }
      for (const inst of c.slots) withSkew(inst.skewMs, () => inst.runtime.reconciler.start());
    } catch (err) {
      await c.close();
      throw err;
    }
    return c;
  }

  #incarnation(slot: number, id: string): Incarnation {
    const t = this.schedule.tuning;
    const skewMs = this.schedule.skews[slot];
    return withSkew(skewMs, () => {
      const metrics = createMetrics({ defaultMetrics: false });
      const env = { ...kafkaEnv(this.requestTimeoutMs), KAFKA_BOOTSTRAP_SERVERS: this.sim.bootstrapServers.join(','), KAFKA_CLIENT_ID: id };
      const kafka = createKafkaGateway(parseKafkaConfig(env), { onKafkaRequest: metrics.onKafkaRequest });
      const config = instanceConfig(t, env, id);
      const log: string[] = [];
      const keep = (level: string) => (msg: string, fields?: Record<string, unknown>) => {
        log.push(`${level} ${msg}${fields ? ` ${JSON.stringify(fields, (_, v) => (typeof v === 'bigint' ? String(v) : v))}` : ''}`);
        if (log.length > 50) log.shift();
      };
      const logger = { info() {}, debug() {}, warn: keep('warn'), error: keep('error') };
      const runtime = createReassignmentRuntime({ kafka, config, metrics: createReassignmentMetrics(metrics.registry), logger });
      const app = appOverKafka({ kafka, metrics, logger, reassignments: runtime });
      let markDead!: () => void;
      const died = new Promise<void>((resolve) => (markDead = resolve));
      const inst: Incarnation = { slot, id, skewMs, kafka, runtime, app, killedAt: null, died, markDead, log };
      this.all.push(inst);
      return inst;
    });
  }

  /** The live incarnation of `slot`, or of the next slot with one (null when all are dead). */
  live(slot: number): Incarnation | null {
    for (let i = 0; i < this.slots.length; i++) {
      const inst = this.slots[(slot + i) % this.slots.length];
      if (inst.killedAt === null) return inst;
    }
    return null;
  }

  /** An HTTP client of `inst`'s app, serving inside its clock skew. */
  http(inst: Incarnation): ReturnType<typeof request> {
    const serve = (req: IncomingMessage, res: ServerResponse) => inst.app(req as Parameters<Express>[0], res as Parameters<Express>[1]);
    return request((req: IncomingMessage, res: ServerResponse) => withSkew(inst.skewMs, () => serve(req, res)));
  }

  kill(slot: number): Incarnation {
    const inst = this.slots[slot];
    if (inst.killedAt !== null) return inst;
    inst.killedAt = realNow();
    this.sim.cutOffClient(inst.id);
    inst.markDead();
    // Timers stop; whatever is in flight fails against the cut-off connections. Not awaited:
    // a dead process does not wait for anything.
    void inst.runtime.reconciler.stop().catch(() => undefined);
    return inst;
  }

  /** A new incarnation in `slot` (after a kill), started as a new process would be. */
  async restart(slot: number): Promise<Incarnation> {
    const old = this.slots[slot];
    if (old.killedAt === null) return old;
    const inst = this.#incarnation(slot, `gw${slot}r${++this.#restarts}`);
    this.slots[slot] = inst;
    withSkew(inst.skewMs, () => inst.runtime.reconciler.start());
    return inst;
  }

  /** Holds every Kafka request of `slot`'s live incarnation for `ms` (delay faults on its client id). */
  pause(slot: number, ms: number): void {
    const inst = this.slots[slot];
    if (inst.killedAt !== null) return;
    const ids = Object.keys(GATEWAY_APIS).map((k) => this.sim.faults.add({ apiKey: Number(k), clientId: inst.id, delayMs: ms }).id);
    this.after(ms, () => ids.forEach((id) => this.sim.faults.remove(id)));
  }

  /** Brokers stopped by the schedule and not started again yet. */
  readonly #stopped = new Set<number>();

  /** Stops broker `id` for `ms` (its connections drop; its partitions elect other leaders). */
  async stopBroker(id: number, ms: number): Promise<void> {
    if (this.#stopped.has(id)) return;
    this.#stopped.add(id);
    await this.sim.stopBroker(id);
    this.after(ms, () => void this.startBrokers([id]));
  }

  /** Starts the stopped brokers among `ids` (all of them by default). */
  async startBrokers(ids: Iterable<number> = [...this.#stopped]): Promise<void> {
    for (const id of ids) {
      if (!this.#stopped.has(id)) continue;
      // A broker listens on its old port again; something else may have taken it while it was
      // down (EADDRINUSE). Given up silently, the broker stayed gone and the run failed for the
      // harness's sake (2 of ~300 replays): it is tried again until the port is free.
      for (let attempt = 1; ; attempt++) {
        try {
          await this.sim.startBroker(id);
          break;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 100) throw err;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      this.#stopped.delete(id);
    }
  }

  /** Runs `fn` after `ms` unless the run is closed first (schedule timers, not synchronisation). */
  after(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, ms);
    this.#timers.add(timer);
  }

  /** Quiesce: every fault and pause gone, every stopped broker started, every pending schedule timer dropped. */
  async calm(): Promise<void> {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    this.sim.faults.clear();
    await this.startBrokers();
  }

  async close(): Promise<void> {
    await this.calm();
    for (const inst of this.all) {
      if (inst.killedAt === null) inst.killedAt = realNow();
      this.sim.cutOffClient(inst.id);
      inst.markDead();
    }
    await Promise.all(this.all.map((inst) => inst.runtime.reconciler.stop().catch(() => undefined)));
    await Promise.all(this.all.map((inst) => inst.kafka.close().catch(() => undefined)));
    this.journal.close();
    this.#offApplied();
    await this.sim.close();
  }
}
