// Topics: list, describe, create, delete. Creation and deletion are controller mutations: they
// go through the quota admission (src/services/quotas/mutation-admission.ts) for the call's
// caller, and answer one result per topic in request order with the RateLimit values.
import { RecentReadsByKey } from '../kafka/recent-read.js';
import type { CreatedTopic, ItemResult, KafkaGateway, NewTopic, TopicDescription, TopicSummary } from '../kafka/types.js';
import type { MutationAdmission, MutationCall, MutationOutcome } from './quotas/mutation-admission.js';
import { createTopicsMutation, deleteTopicsMutation } from './topic-mutations.js';

export type { CreatedTopic, ItemResult, NewTopic, TopicDescription, TopicSummary };

/** Topics whose recent description is kept at most (only those read within maxAgeMs are). */
const DESCRIBED_TOPICS_KEPT = 256;

/** How descriptions are answered again (createGatewayServices). */
export interface RecentDescriptions {
  readonly maxAgeMs: number;
  /** Changes whenever this gateway changed what a description shows (topics, partitions, leaders, configs, replicas). */
  readonly writeVersion: () => number;
}

export class TopicService {
  readonly #kafka: KafkaGateway;
  readonly #admission: MutationAdmission;
  readonly #described: RecentReadsByKey<string, TopicDescription> | null;

  /**
   * `recent`: a description is answered again to callers within `maxAgeMs` of its read (shared
   * by concurrent callers too), unless this gateway changed something since, as GET
   * /reassignments is: pollers (the console, dashboards, scripts) share one read instead of two
   * Kafka requests each. A change made elsewhere (another instance, a tool, a broker that
   * failed) shows within maxAgeMs; Kafka's own Metadata is eventually consistent across brokers
   * in the same way.
   */
  constructor(kafka: KafkaGateway, admission: MutationAdmission, recent?: RecentDescriptions) {
    this.#kafka = kafka;
    this.#admission = admission;
    this.#described = recent
      ? new RecentReadsByKey((name) => kafka.describeTopic(name), {
          maxAgeMs: recent.maxAgeMs,
          version: recent.writeVersion,
          maxKeys: DESCRIBED_TOPICS_KEPT,
        })
      : null;
  }

  list(): Promise<TopicSummary[]> {
    return this.#kafka.listTopics();
  }

  /** Throws the Kafka layer's failure (UNKNOWN_TOPIC_OR_PARTITION for a topic that does not exist). */
  describe(name: string): Promise<TopicDescription> {
    return this.#described ? this.#described.get(name) : this.#kafka.describeTopic(name);
  }

  create(call: MutationCall, topics: NewTopic[], validateOnly: boolean): Promise<MutationOutcome<CreatedTopic>> {
    return this.#admission.run(call, createTopicsMutation(topics, validateOnly));
  }

  delete(call: MutationCall, names: string[]): Promise<MutationOutcome<null>> {
    return this.#admission.run(call, deleteTopicsMutation(names));
  }
}
