// The configs of one topic or one broker: read them all (with synonyms: the value at each
// level), and change the resource's own level (a topic's overrides, a broker's dynamic
// configs) with ONE IncrementalAlterConfigs request of SET and DELETE operations. Never the
// legacy AlterConfigs, which replaces every dynamic config of the resource.
//
// The replication throttle keys are refused (src/domain/config-change.ts): the throttle
// machinery (src/services/throttles.ts) owns them. IncrementalAlterConfigs is not a controller
// mutation in KIP-599's sense (only CreateTopics, CreatePartitions and DeleteTopics are
// charged), so it does not go through the mutation quota guard; a THROTTLING_QUOTA_EXCEEDED
// (89) a broker might still answer is returned as Kafka's error and answered 429 like any 89.
import {
  gatewayOwnedKeys,
  keysSetAndDeleted,
  OWN_SOURCE,
  projectChange,
  type ConfigChange,
  type ConfigLevel,
  type DescribedConfig,
} from '../domain/config-change.js';
import { KafkaRequestError } from '../kafka/errors.js';
import type { ConfigOp, KafkaAdmin } from '../kafka/kafka-admin.js';
import type { KafkaErrorInfo } from '../kafka/types.js';

export type { ConfigChange, ConfigLevel, DescribedConfig } from '../domain/config-change.js';

export interface ConfigResource {
  kind: ConfigLevel;
  /** Topic name, or broker id as a decimal string. */
  name: string;
}

export type DescribeOutcome = { kind: 'ok'; configs: DescribedConfig[] } | { kind: 'broker-not-found'; broker: string };

export type AlterOutcome =
  /** Applied (or, with validateOnly, accepted by Kafka): the configs after the change. */
  | { kind: 'ok'; validateOnly: boolean; configs: DescribedConfig[] }
  /** Keys the gateway's throttle machinery owns; nothing was sent to Kafka. */
  | { kind: 'gateway-owned'; keys: string[] }
  /** Keys both set and deleted; nothing was sent to Kafka. */
  | { kind: 'set-and-deleted'; keys: string[] }
  | { kind: 'broker-not-found'; broker: string }
  /** Kafka refused the change (the resource's error: 3, 40, 42, 44, 89, ...); nothing changed. */
  | { kind: 'kafka-error'; error: KafkaErrorInfo };

export class TopicConfigService {
  constructor(private readonly kafka: KafkaAdmin) {}

  /**
   * Every config of the resource, sorted by name; `includeDefaults: false` keeps only the
   * resource's own level (what alter sets and deletes). Kafka errors are thrown
   * (KafkaRequestError: 3 for an unknown topic).
   */
  async describe(resource: ConfigResource, opts: { includeDefaults?: boolean } = {}): Promise<DescribeOutcome> {
    if (resource.kind === 'broker' && !(await this.#brokerExists(resource.name)))
      return { kind: 'broker-not-found', broker: resource.name };
    const configs = await this.kafka.describeConfigs(resource);
    return { kind: 'ok', configs: opts.includeDefaults === false ? configs.filter((c) => isOwnLevel(resource.kind, c)) : configs };
  }

  /**
   * One IncrementalAlterConfigs for the resource (Kafka applies it atomically), then the
   * configs as they are now; with validateOnly, Kafka validates the change and the answer
   * is what DescribeConfigs would say after it (projectChange).
   */
  async alter(resource: ConfigResource, change: ConfigChange, validateOnly: boolean): Promise<AlterOutcome> {
    const owned = gatewayOwnedKeys(resource.kind, change);
    if (owned.length > 0) return { kind: 'gateway-owned', keys: owned };
    const both = keysSetAndDeleted(change);
    if (both.length > 0) return { kind: 'set-and-deleted', keys: both };
    if (resource.kind === 'broker' && !(await this.#brokerExists(resource.name)))
      return { kind: 'broker-not-found', broker: resource.name };

    const ops: ConfigOp[] = [
      ...Object.entries(change.set).map(([name, value]): ConfigOp => ({ name, op: 'SET', value })),
      ...change.delete.map((name): ConfigOp => ({ name, op: 'DELETE' })),
    ];
    // Read first for validateOnly (the projection's base): a failing read (unknown topic) is
    // then answered as Kafka's error, like the alter's own.
    const before = validateOnly || ops.length === 0 ? await this.#read(resource) : null;
    if (before && 'error' in before) return { kind: 'kafka-error', error: before.error };
    if (ops.length > 0) {
      const [result] = await this.kafka.incrementalAlterConfigs([{ kind: resource.kind, name: resource.name, ops }], validateOnly);
      if (!result) throw new Error(`Kafka layer returned no result for ${resource.kind} '${resource.name}'`);
      if (!result.ok) return { kind: 'kafka-error', error: result.error };
    }
    if (before)
      return { kind: 'ok', validateOnly, configs: validateOnly ? projectChange(before.configs, resource.kind, change) : before.configs };
    return { kind: 'ok', validateOnly, configs: await this.kafka.describeConfigs(resource) };
  }

  async #read(resource: ConfigResource): Promise<{ configs: DescribedConfig[] } | { error: KafkaErrorInfo }> {
    try {
      return { configs: await this.kafka.describeConfigs(resource) };
    } catch (err) {
      // Only a broker's answer for this resource (an error code) is an outcome; anything else
      // (Kafka unreachable) is thrown on, to be answered 503 like every other read.
      if (err instanceof KafkaRequestError && err.kind === 'kafka') return { error: err.kafka };
      throw err;
    }
  }

  async #brokerExists(id: string): Promise<boolean> {
    const { brokers } = await this.kafka.describeCluster();
    return brokers.some((b) => String(b.id) === id);
  }
}

function isOwnLevel(kind: ConfigLevel, c: DescribedConfig): boolean {
  return c.source === OWN_SOURCE[kind];
}
