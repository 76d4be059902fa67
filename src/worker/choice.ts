// Where the reassignment runtime runs: in a worker thread of its own, or on the HTTP thread.
//
// GATEWAY_WORKER_THREAD=auto (the default) decides once, at startup, from the size of the
// cluster: the worker pays for itself on a large cluster and costs more than it gives on a small
// one (docs/worker-thread.md, "Default"):
// - at 100,000 moving partitions, only with the worker does the HTTP thread meet its latency
//   targets (`/healthz` p99 ≤ 20 ms): without it the reconciler's passes, the big JSON and their
//   collections run on the thread that answers;
// - on a 20,000-partition cluster (10,000 moving) the in-process gateway already answers in time,
//   and the worker's second isolate costs ~55 MiB and a few ms per forwarded request.
// The size is the cluster's partition count when the gateway starts. A cluster that grows past
// the threshold later gets the worker at the gateway's next restart; GATEWAY_WORKER_THREAD=on or
// off fixes the choice whatever the size.
import { envInt } from '../env.js';
import type { KafkaGateway } from '../kafka/types.js';

export type WorkerThreadSetting = { mode: 'on' } | { mode: 'off' } | { mode: 'auto'; minPartitions: number };

export interface WorkerThreadChoice {
  workerThread: boolean;
  /** For the startup log: why. */
  reason: string;
}

/** The default of GATEWAY_WORKER_THREAD_MIN_PARTITIONS: between the sizes measured (20,000: off is better; 100,000: on is needed). */
export const WORKER_THREAD_MIN_PARTITIONS = 50_000;

/** GATEWAY_WORKER_THREAD=auto|on|off (also true/1, false/0) and GATEWAY_WORKER_THREAD_MIN_PARTITIONS; throws on anything else. */
export function parseWorkerThreadSetting(env: NodeJS.ProcessEnv): WorkerThreadSetting {
  const raw = env.GATEWAY_WORKER_THREAD;
  const v = raw?.trim().toLowerCase();
  const problems: string[] = [];
  const minPartitions = envInt(env, 'GATEWAY_WORKER_THREAD_MIN_PARTITIONS', WORKER_THREAD_MIN_PARTITIONS, 0, 100_000_000, problems);
  if (problems.length > 0) throw new Error(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  if (v === undefined || v === '' || v === 'auto') return { mode: 'auto', minPartitions };
  if (v === 'on' || v === 'true' || v === '1') return { mode: 'on' };
  if (v === 'off' || v === 'false' || v === '0') return { mode: 'off' };
  throw new Error(`GATEWAY_WORKER_THREAD must be auto, on or off, got "${raw}"`);
}

/** The cluster's partition count (auto's measure of its size): one Metadata read of every topic. */
export async function countClusterPartitions(kafka: Pick<KafkaGateway, 'listTopics'>): Promise<number> {
  return (await kafka.listTopics()).reduce((sum, t) => sum + t.partitions, 0);
}

/**
 * The choice for this run. `clusterPartitions` is the cluster's partition count read at startup,
 * null when it could not be read: then auto stays on the HTTP thread (the lighter choice, and the
 * one that needs nothing more from Kafka to start); `'embedded'` for the embedded demo cluster,
 * which the gateway creates itself with a few topics (nothing to read).
 */
export function chooseWorkerThread(setting: WorkerThreadSetting, clusterPartitions: number | null | 'embedded'): WorkerThreadChoice {
  if (setting.mode === 'on') return { workerThread: true, reason: 'GATEWAY_WORKER_THREAD=on' };
  if (setting.mode === 'off') return { workerThread: false, reason: 'GATEWAY_WORKER_THREAD=off' };
  const min = setting.minPartitions.toLocaleString('en-US');
  if (clusterPartitions === 'embedded')
    return { workerThread: false, reason: `auto: the cluster is the embedded demo (fewer than ${min})` };
  if (clusterPartitions === null)
    return {
      workerThread: false,
      reason: `auto: the cluster's size could not be read at startup (the worker thread is used from ${min} partitions)`,
    };
  const n = clusterPartitions.toLocaleString('en-US');
  return clusterPartitions >= setting.minPartitions
    ? { workerThread: true, reason: `auto: the cluster has ${n} partitions (at least ${min})` }
    : { workerThread: false, reason: `auto: the cluster has ${n} partitions (fewer than ${min})` };
}
