// The end of a chaos run: with every fault gone (cluster.ts calm), wait until the cluster has
// settled, polling conditions (never a fixed sleep): no request still held by a delay fault,
// every reassignment ended, nothing moving in Kafka, no throttle left but the foreign ones.
// Pauses the schedule left in place (or resumes whose answer was lost) are lifted on the way,
// through a live instance, as an operator would. Then the final state, read independently: a
// fresh Kafka client of its own (the state topic's records, the throttle configs) and the
// simulator's placement.
import { createKafkaGateway, type PlatformaticKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { THROTTLE_KEYS } from '../../src/reconcile/throttle-sync.js';
import type { ReassignmentRecord } from '../../src/state/records.js';
import { StateStore } from '../../src/state/store.js';
import { resume, type History } from './actions.js';
import { realNow } from './clock.js';
import type { ChaosCluster } from './cluster.js';
import { kafkaEnv } from './config.js';
import type { FinalState } from './invariants.js';
import type { ChaosSchedule } from './schedule.js';

const STATE_TOPIC = '_kafka_admin_gateway_state';
const POLL_MS = 20;
/** A paused reassignment is resumed at most this often (a PATCH in flight meanwhile). */
const RESUME_EVERY_MS = 500;

type Throttles = Record<string, Record<string, string>>;

/** Whether `name` on `resource` is one of the foreign throttles (someone else's, set before the run). */
export function isForeign(s: ChaosSchedule, resource: string, name: string): boolean {
  const f = s.foreign;
  return (
    (resource === `broker:${f.broker}` && name === 'leader.replication.throttled.rate') ||
    (resource === `topic:${f.topic}` && name === 'follower.replication.throttled.replicas')
  );
}

/** Every throttle override on the run's topics and brokers, by `topic:<t>` / `broker:<id>`. */
async function readThrottles(kafka: PlatformaticKafkaGateway, s: ChaosSchedule): Promise<Throttles> {
  const resources = [
    ...s.topics.map((t) => ({ kind: 'topic' as const, name: t.name })),
    ...Array.from({ length: s.tuning.brokers }, (_, i) => ({ kind: 'broker' as const, name: String(i) })),
  ];
  const out: Throttles = {};
  for (const r of await kafka.describeConfigOverrides(resources, THROTTLE_KEYS)) {
    if (!r.ok) throw new Error(`DescribeConfigs ${r.kind} ${r.name}: ${JSON.stringify(r.error)}`);
    if (Object.keys(r.value).length > 0) out[`${r.kind}:${r.name}`] = r.value;
  }
  return out;
}

/** What is not settled yet ('' = settled). */
function unsettledNow(cluster: ChaosCluster, s: ChaosSchedule, records: ReassignmentRecord[], throttles: Throttles): string {
  const live = records.filter((r) => r.state === 'pending' || r.state === 'running');
  const moving = cluster.sim.model.movingPartitionCount();
  const ours = Object.entries(throttles).filter(([res, cfg]) => Object.keys(cfg).some((k) => !isForeign(s, res, k)));
  const held = cluster.delayedUntil - realNow();
  return [
    held > 0 && `a request held by a delay fault is released in ${Math.round(held)} ms`,
    live.length > 0 && `reassignments still live: ${live.map((r) => `${r.id} ${r.state}${r.paused ? ' (paused)' : ''}`).join(', ')}`,
    moving > 0 && `${moving} partitions still moving in Kafka`,
    ours.length > 0 && `throttles still set: ${ours.map(([res, cfg]) => `${res} ${JSON.stringify(cfg)}`).join(', ')}`,
  ]
    .filter(Boolean)
    .join('; ');
}

/** Polls until settled, at most `settleMs`; the final state as an independent client reads it. */
export async function quiesce(cluster: ChaosCluster, history: History, s: ChaosSchedule, settleMs: number): Promise<FinalState> {
  const env = { KAFKA_BOOTSTRAP_SERVERS: cluster.sim.bootstrapServers.join(','), KAFKA_CLIENT_ID: 'chaos-checker' };
  const checker = createKafkaGateway(parseKafkaConfig({ ...kafkaEnv(cluster.requestTimeoutMs), ...env }));
  try {
    const store = new StateStore(checker.stateTopic({ name: STATE_TOPIC }));
    const deadline = realNow() + settleMs;
    const resumedAt = new Map<string, number>();
    let records: ReassignmentRecord[] = [];
    let throttles: Throttles = {};
    let unsettled = 'not read yet';
    for (;;) {
      try {
        records = [...(await store.refresh()).reassignments.values()];
        for (const r of records) {
          // A pause the schedule left in place (or a resume whose answer was lost): lift it.
          if ((r.state !== 'pending' && r.state !== 'running') || !r.paused) continue;
          if (realNow() - (resumedAt.get(r.id) ?? 0) < RESUME_EVERY_MS) continue;
          resumedAt.set(r.id, realNow());
          await resume(cluster, history, Number(/^t(\d+)$/.exec(r.partitions[0]?.topic ?? '')?.[1] ?? -1), r.id);
        }
        throttles = await readThrottles(checker, s);
        unsettled = unsettledNow(cluster, s, records, throttles);
        if (unsettled === '') break;
      } catch (err) {
        unsettled = `the final read failed: ${err instanceof Error ? err.message : String(err)}`;
      }
      if (realNow() > deadline) break;
      await new Promise<void>((r) => setTimeout(r, POLL_MS));
    }
    const replicas = new Map<string, number[]>();
    for (const t of s.topics) {
      const view = cluster.sim.model.topicView({ name: t.name });
      view?.partitions.forEach((p, i) => replicas.set(`${t.name}-${i}`, [...p.replicas]));
    }
    return { records, throttles, replicas, unsettled: unsettled === '' ? null : `after ${settleMs} ms of quiet: ${unsettled}` };
  } finally {
    await checker.close().catch(() => undefined);
  }
}
