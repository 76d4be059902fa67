// Dynamic configs of topics and brokers, as free functions over KafkaAdmin: kept so callers
// written before KafkaAdmin keep their imports. The requests are src/kafka/apis/describe-
// configs-v4.ts and incremental-alter-configs-v1.ts (routing: apis/config-resources.ts).
import type { ConfigAlteration, ConfigDetail, ConfigOverrides, ConfigResourceKind, ConfigResult } from './apis/config-resources.js';
import type { KafkaAdmin } from './kafka-admin.js';

export type { ConfigAlteration, ConfigDetail, ConfigOp, ConfigOverrides, ConfigResourceKind, ConfigResult, ConfigSynonym } from './apis/config-resources.js';

/** Every config of one topic or broker with its synonyms (DescribeConfigs include_synonyms). */
export function describeConfigs(kafka: KafkaAdmin, resource: { kind: ConfigResourceKind; name: string }): Promise<ConfigDetail[]> {
  return kafka.describeConfigs(resource);
}

/**
 * Reads the overrides of the given resources, restricted to `keys`. One result per
 * resource; a broker that cannot be reached fails only its own result.
 */
export function describeConfigOverrides(
  kafka: KafkaAdmin,
  resources: { kind: ConfigResourceKind; name: string }[],
  keys: string[],
): Promise<ConfigResult<ConfigOverrides>[]> {
  return kafka.describeConfigOverrides(resources, keys);
}

/**
 * IncrementalAlterConfigs; each resource is applied atomically by Kafka and answered on
 * its own (one failing resource does not undo another).
 */
export function incrementalAlterConfigs(kafka: KafkaAdmin, alterations: ConfigAlteration[], validateOnly = false): Promise<ConfigResult<null>[]> {
  return kafka.incrementalAlterConfigs(alterations, validateOnly);
}
