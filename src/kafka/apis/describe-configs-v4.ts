// DescribeConfigs v4: every config of one topic (GET /topics/{name}), and the overrides of
// topics and brokers (replication throttles), routed as src/kafka/apis/config-resources.ts says.
/*
  DescribeConfigs Request (Version: 4) => [resources] include_synonyms include_documentation TAG_BUFFER
    resources => resource_type resource_name [configuration_keys] TAG_BUFFER
      resource_type => INT8
      resource_name => COMPACT_STRING
      configuration_keys => COMPACT_NULLABLE_STRING
    include_synonyms => BOOLEAN
    include_documentation => BOOLEAN

  DescribeConfigs Response (Version: 4) => throttle_time_ms [results] TAG_BUFFER
    throttle_time_ms => INT32
    results => error_code error_message resource_type resource_name [configs] TAG_BUFFER
      error_code => INT16
      error_message => COMPACT_NULLABLE_STRING
      resource_type => INT8
      resource_name => COMPACT_STRING
      configs => name value read_only config_source is_sensitive [synonyms] config_type documentation TAG_BUFFER
        name => COMPACT_STRING
        value => COMPACT_NULLABLE_STRING
        read_only => BOOLEAN
        config_source => INT8
        is_sensitive => BOOLEAN
        synonyms => name value source TAG_BUFFER
          name => COMPACT_STRING
          value => COMPACT_NULLABLE_STRING
          source => INT8
        config_type => INT8
        documentation => COMPACT_NULLABLE_STRING
*/
import { ConfigResourceTypes, ConfigSources, describeConfigsV4 } from '@platformatic/kafka';
import { KafkaRequestError } from '../errors.js';
import { ERROR_CODES, kafkaErrorInfo } from '../errors-map.js';
import { firstErrorName, type RequestSender, type Transport } from '../request.js';
import type { ConfigEntry } from '../types.js';
import {
  byDestination,
  failAll,
  firstError,
  OVERRIDE_SOURCE,
  RESOURCE_TYPE,
  type ConfigDetail,
  type ConfigOverrides,
  type ConfigResourceKind,
  type ConfigResult,
} from './config-resources.js';
import { at, GATEWAY_APIS } from './versions.js';

type DescribeConfigsResponse = Awaited<ReturnType<typeof describeConfigsV4.api.async>>;

const CONFIG_SOURCE_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(ConfigSources as Record<string, number>).map(([name, n]) => [n, name]),
);

/**
 * Kafka's own names (ConfigResource's ConfigSource): DYNAMIC_TOPIC_CONFIG for 1, not the
 * client's deprecated TOPIC_CONFIG alias, which GET /topics/{topic} kept for compatibility.
 */
const KAFKA_SOURCE_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(ConfigSources as Record<string, number>)
    .filter(([name]) => name !== 'TOPIC_CONFIG')
    .map(([name, n]) => [n, name]),
);

/** Every config of topic `name` (sensitive values hidden), sorted by name. */
export async function describeTopicConfigs(kafka: Transport, name: string): Promise<ConfigEntry[]> {
  return kafka.withRetry('DescribeConfigs', async () => {
    const res: DescribeConfigsResponse = await kafka.send(
      'DescribeConfigs',
      'any',
      async (conn) =>
        (await at(conn, GATEWAY_APIS.DescribeConfigs, describeConfigsV4.api)).async(
          conn,
          [{ resourceType: ConfigResourceTypes.TOPIC, resourceName: name, configurationKeys: null }],
          false,
          false,
        ),
      (r) => firstErrorName(r.results.map((x) => x.errorCode)),
    );
    const result = res.results[0];
    if (!result) throw new KafkaRequestError('kafka', kafkaErrorInfo(ERROR_CODES.UNKNOWN_SERVER_ERROR, 'Empty DescribeConfigs response'));
    if (result.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(result.errorCode, result.errorMessage));
    return result.configs
      .map((c): ConfigEntry => ({
        name: c.name,
        value: c.isSensitive ? null : (c.value ?? null),
        source: CONFIG_SOURCE_NAMES[c.configSource] ?? 'UNKNOWN',
        isDefault: c.configSource === ConfigSources.DEFAULT_CONFIG,
        readOnly: c.readOnly,
        sensitive: c.isSensitive,
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
  });
}

/**
 * Every config of one topic or broker with its synonyms (include_synonyms: the value at each
 * level, highest precedence first), sorted by name; sensitive values are null. A broker is
 * asked itself (config-resources.ts). Throws KafkaRequestError with the resource's error.
 */
export async function describeConfigs(kafka: Transport, resource: { kind: ConfigResourceKind; name: string }): Promise<ConfigDetail[]> {
  const target = resource.kind === 'broker' ? { broker: Number(resource.name) } : 'any';
  const req = [{ resourceType: RESOURCE_TYPE[resource.kind], resourceName: resource.name, configurationKeys: null }];
  return kafka.withRetry('DescribeConfigs', async () => {
    const res: DescribeConfigsResponse = await kafka.send(
      'DescribeConfigs',
      target,
      async (conn) => (await at(conn, GATEWAY_APIS.DescribeConfigs, describeConfigsV4.api)).async(conn, req, true, false),
      (r) => firstErrorName(r.results.map((x) => x.errorCode)),
    );
    const result = res.results[0];
    if (!result) throw new KafkaRequestError('kafka', kafkaErrorInfo(ERROR_CODES.UNKNOWN_SERVER_ERROR, 'Empty DescribeConfigs response'));
    if (result.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(result.errorCode, result.errorMessage));
    const sourceName = (n: number) => KAFKA_SOURCE_NAMES[n] ?? 'UNKNOWN';
    return result.configs
      .map((c): ConfigDetail => ({
        name: c.name,
        value: c.isSensitive ? null : (c.value ?? null),
        source: sourceName(c.configSource),
        isSensitive: c.isSensitive,
        isReadOnly: c.readOnly,
        synonyms: (c.synonyms ?? []).map((s) => ({
          name: s.name,
          value: c.isSensitive ? null : (s.value ?? null),
          source: sourceName(s.source),
        })),
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  });
}

/**
 * Reads the overrides of the given resources, restricted to `keys`. One result per
 * resource; a broker that cannot be reached fails only its own result.
 */
export async function describeConfigOverrides(
  kafka: RequestSender,
  resources: { kind: ConfigResourceKind; name: string }[],
  keys: string[],
): Promise<ConfigResult<ConfigOverrides>[]> {
  const groups = byDestination(resources);
  const results = await Promise.all(
    groups.map(async ({ target, items }): Promise<ConfigResult<ConfigOverrides>[]> => {
      const kind = items[0].kind;
      try {
        const res = await kafka.sendRequest(
          'DescribeConfigs',
          target,
          async (conn) =>
            (await at(conn, GATEWAY_APIS.DescribeConfigs, describeConfigsV4.api)).async(
              conn,
              items.map((i) => ({ resourceType: RESOURCE_TYPE[i.kind], resourceName: i.name, configurationKeys: keys })),
              false,
              false,
            ),
          (r) => firstError(r.results.map((x) => x.errorCode)),
        );
        return items.map((i) => {
          const r = res.results.find((x) => x.resourceName === i.name && x.resourceType === RESOURCE_TYPE[i.kind]);
          if (!r)
            return {
              kind: i.kind,
              name: i.name,
              ok: false as const,
              error: kafkaErrorInfo(-1, 'No result for this resource in the DescribeConfigs response'),
            };
          if (r.errorCode !== 0)
            return { kind: i.kind, name: i.name, ok: false as const, error: kafkaErrorInfo(r.errorCode, r.errorMessage) };
          const value: ConfigOverrides = {};
          for (const c of r.configs) if (c.configSource === OVERRIDE_SOURCE[i.kind] && c.value != null) value[c.name] = c.value;
          return { kind: i.kind, name: i.name, ok: true as const, value };
        });
      } catch (err) {
        return failAll(
          kind,
          items.map((i) => i.name),
          err,
        );
      }
    }),
  );
  return results.flat();
}
