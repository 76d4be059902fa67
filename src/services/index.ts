// The composition of the application services one gateway instance serves its API with
// (src/main.ts builds them; src/http/app.ts receives them). Each service owns a use case:
// typed inputs, typed outcomes, no HTTP; src/http parses, calls one, and maps the outcome.
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
import { TopicService } from './topics.js';

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
    topics: new TopicService(kafka, quota.mutations),
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
