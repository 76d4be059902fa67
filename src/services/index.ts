// The composition of the application services one gateway instance serves its API with
// (src/main.ts builds them; src/http/app.ts receives them). Each service owns a use case:
// typed inputs, typed outcomes, no HTTP; src/http parses, calls one, and maps the outcome.
import type { KafkaAdmin } from '../kafka/kafka-admin.js';
import type { KafkaGateway } from '../kafka/types.js';
import type { ReassignmentRuntime } from '../reconcile/index.js';
import { ClusterService } from './cluster.js';
import { TopicConfigService } from './configs.js';
import { LeaderElectionService } from './leaders.js';
import { PartitionService } from './partitions.js';
import { PlanService } from './plans.js';
import { createQuotaServices, type QuotaServiceOptions } from './quotas/index.js';
import type { ClientQuotaService } from './quotas/client-quotas.js';
import { ReadinessService, type StateReadiness } from './readiness.js';
import type { ThrottleService } from './throttles.js';
import { TopicService, type RecentDescriptions } from './topics.js';

export interface GatewayServicesOptions {
  kafka: KafkaGateway;
  /** Reassignments and throttles (src/reconcile): without it /reassignments, /throttles, /plans, /brokers and /leaders are not served. */
  reassignments?: ReassignmentRuntime;
  /** Topic and broker configs. Default: over the reassignment runtime's Kafka layer when there is one; without either, not served. */
  configs?: TopicConfigService;
  /** Controller mutation quotas: per-caller client ids, gateway-side admission. Default: all off. */
  quota?: QuotaServiceOptions;
  /**
   * The state topic when the reassignment runtime runs elsewhere (GATEWAY_WORKER_THREAD=on,
   * src/worker): readiness reads it, and it is protected like the runtime's own.
   */
  stateTopic?: StateReadiness;
  /**
   * Changes made to the cluster by this gateway outside `kafka` (the worker thread's), counted:
   * a recent read is not answered again after one (see TopicService).
   */
  writesElsewhere?: () => number;
  /**
   * How long a topic's description is answered again to other callers (ms; TOPIC_READ_MAX_AGE_MS).
   * Default 0: every GET /topics/{name} reads Kafka.
   */
  topicReadMaxAgeMs?: number;
}

export interface GatewayServices {
  readonly topics: TopicService;
  readonly partitions: PartitionService;
  readonly cluster: ClusterService;
  readonly readiness: ReadinessService;
  /** Client quotas; undefined for a Kafka layer without low-level requests (test doubles). */
  readonly quotas: ClientQuotaService | undefined;
  readonly configs: TopicConfigService | undefined;
  readonly plans: PlanService | undefined;
  readonly leaders: LeaderElectionService | undefined;
  readonly throttles: ThrottleService | undefined;
  /** The reassignment runtime (its service, store and config), for the reassignment routes and event streams. */
  readonly reassignments: ReassignmentRuntime | undefined;
  /** The gateway's own state topic: never deleted, re-partitioned or reconfigured through the gateway. */
  readonly protectedTopics: { has(name: string): boolean };
}

export function createGatewayServices(opts: GatewayServicesOptions): GatewayServices {
  const { kafka, reassignments } = opts;
  const quota = createQuotaServices(kafka, opts.quota);
  const stateTopic = reassignments?.config.stateTopic ?? opts.stateTopic?.topic;
  // Plans, broker loads, configs and leader elections go through the reassignment runtime's
  // Kafka layer (the one the reconciler uses).
  const runtimeKafka = reassignments?.reassignments.deps.kafka;
  return {
    topics: new TopicService(kafka, quota.mutations, recentDescriptions(kafka, opts)),
    partitions: new PartitionService(quota.mutations),
    cluster: new ClusterService(kafka),
    readiness: new ReadinessService(kafka, reassignments?.store ?? opts.stateTopic),
    quotas: quota.quotas,
    configs: opts.configs ?? (runtimeKafka && new TopicConfigService(runtimeKafka)),
    plans: runtimeKafka && new PlanService(runtimeKafka),
    leaders: runtimeKafka && new LeaderElectionService(runtimeKafka),
    throttles: reassignments?.throttles,
    reassignments,
    protectedTopics: { has: (name: string) => name === stateTopic },
  };
}

export type { QuotaServiceOptions };

/**
 * The recent descriptions' settings: their age, and a version that changes whenever this gateway
 * changed what a description shows, through `kafka` (the KafkaAdmin implementation counts its
 * writes, src/kafka/recent-read.ts) or elsewhere. Undefined (every GET reads Kafka) with an age
 * of 0 or a Kafka layer that does not count its writes (test doubles).
 */
function recentDescriptions(kafka: KafkaGateway, opts: GatewayServicesOptions): RecentDescriptions | undefined {
  const maxAgeMs = opts.topicReadMaxAgeMs ?? 0;
  if (maxAgeMs <= 0 || !('writeVersion' in kafka)) return undefined;
  const admin = kafka as KafkaGateway & Pick<KafkaAdmin, 'writeVersion'>;
  const elsewhere = opts.writesElsewhere;
  return {
    maxAgeMs,
    writeVersion: () =>
      admin.writeVersion('topics') + admin.writeVersion('configs') + admin.writeVersion('reassignments') + (elsewhere?.() ?? 0),
  };
}
