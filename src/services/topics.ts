// Topics: list, describe, create, delete. Creation and deletion are controller mutations: they
// go through the quota admission (src/services/quotas/mutation-admission.ts) for the call's
// caller, and answer one result per topic in request order with the RateLimit values.
import type { CreatedTopic, ItemResult, KafkaGateway, NewTopic, TopicDescription, TopicSummary } from '../kafka/types.js';
import type { MutationAdmission, MutationCall, MutationOutcome } from './quotas/mutation-admission.js';
import { createTopicsMutation, deleteTopicsMutation } from './topic-mutations.js';

export type { CreatedTopic, ItemResult, NewTopic, TopicDescription, TopicSummary };

export class TopicService {
  readonly #kafka: KafkaGateway;
  readonly #admission: MutationAdmission;

  constructor(kafka: KafkaGateway, admission: MutationAdmission) {
    this.#kafka = kafka;
    this.#admission = admission;
  }

  list(): Promise<TopicSummary[]> {
    return this.#kafka.listTopics();
  }

  /** Throws the Kafka layer's failure (UNKNOWN_TOPIC_OR_PARTITION for a topic that does not exist). */
  describe(name: string): Promise<TopicDescription> {
    return this.#kafka.describeTopic(name);
  }

  create(call: MutationCall, topics: NewTopic[], validateOnly: boolean): Promise<MutationOutcome<CreatedTopic>> {
    return this.#admission.run(call, createTopicsMutation(topics, validateOnly));
  }

  delete(call: MutationCall, names: string[]): Promise<MutationOutcome<null>> {
    return this.#admission.run(call, deleteTopicsMutation(names));
  }
}
