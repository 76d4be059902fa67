// Dynamic configs of topics and brokers: DescribeConfigs v4 to read, IncrementalAlterConfigs
// v1 to write. Used for replication throttles, which is why there is no AlterConfigs here:
// legacy AlterConfigs replaces *every* dynamic config of a resource, so it would wipe
// throttles (and anything else) other people set. IncrementalAlterConfigs touches only the
// named keys.
//
// Routing: a BROKER resource is read from and written to that broker (Kafka's ConfigHelper
// refuses "Unexpected broker id" otherwise; in KRaft the broker forwards the write to the
// controller). TOPIC resources go to any broker in one request.
import { ConfigResourceTypes, ConfigSources, describeConfigsV4, incrementalAlterConfigsV1 } from '@platformatic/kafka';
import type { PlatformaticKafkaGateway } from './admin.js';
import { kafkaErrorInfo, kafkaErrorName, NONE, toKafkaRequestError } from './errors-map.js';
import type { KafkaErrorInfo } from './types.js';

export type ConfigResourceKind = 'topic' | 'broker';

export type ConfigOp =
  | { name: string; op: 'SET'; value: string }
  | { name: string; op: 'DELETE' }
  /** List configs only: add / remove entries (Kafka de-duplicates on APPEND). */
  | { name: string; op: 'APPEND' | 'SUBTRACT'; value: string };

export interface ConfigAlteration {
  kind: ConfigResourceKind;
  /** Topic name, or broker id as a string. */
  name: string;
  ops: ConfigOp[];
}

export type ConfigResult<T> = { kind: ConfigResourceKind; name: string; ok: true; value: T } | { kind: ConfigResourceKind; name: string; ok: false; error: KafkaErrorInfo };

/** Overrides only: name -> value of configs set on the resource itself (not defaults, not static). */
export type ConfigOverrides = Record<string, string>;

const OP_CODES = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;
const RESOURCE_TYPE = { topic: ConfigResourceTypes.TOPIC, broker: ConfigResourceTypes.BROKER } as const;
/** The config source that means "set on this resource": per-topic override / per-broker dynamic config. */
const OVERRIDE_SOURCE = { topic: ConfigSources.TOPIC_CONFIG, broker: ConfigSources.DYNAMIC_BROKER_CONFIG } as const;

function firstError(codes: number[]): string {
  const c = codes.find((x) => x !== 0);
  return c === undefined ? NONE : kafkaErrorName(c);
}

function failAll<T>(kind: ConfigResourceKind, names: string[], err: unknown): ConfigResult<T>[] {
  const e = toKafkaRequestError(err);
  return names.map((name) => ({ kind, name, ok: false as const, error: e.kafka }));
}

/** Groups resources by where they must be sent: topics together, each broker on its own. */
function byDestination<T extends { kind: ConfigResourceKind; name: string }>(items: T[]): { target: 'any' | { broker: number }; items: T[] }[] {
  const topics = items.filter((i) => i.kind === 'topic');
  const out: { target: 'any' | { broker: number }; items: T[] }[] = topics.length ? [{ target: 'any', items: topics }] : [];
  const brokers = new Map<string, T[]>();
  for (const i of items.filter((x) => x.kind === 'broker')) brokers.set(i.name, [...(brokers.get(i.name) ?? []), i]);
  for (const [name, list] of brokers) out.push({ target: { broker: Number(name) }, items: list });
  return out;
}

/**
 * Reads the overrides of the given resources, restricted to `keys`. One result per
 * resource; a broker that cannot be reached fails only its own result.
 */
export async function describeConfigOverrides(
  kafka: PlatformaticKafkaGateway,
  resources: { kind: ConfigResourceKind; name: string }[],
  keys: string[],
): Promise<ConfigResult<ConfigOverrides>[]> {
  const groups = byDestination(resources);
  const results = await Promise.all(
    groups.map(async ({ target, items }): Promise<ConfigResult<ConfigOverrides>[]> => {
      const kind = items[0]!.kind;
      try {
        const res = await kafka.sendRequest(
          'DescribeConfigs',
          target,
          (conn) =>
            describeConfigsV4.api.async(
              conn,
              items.map((i) => ({ resourceType: RESOURCE_TYPE[i.kind], resourceName: i.name, configurationKeys: keys })),
              false,
              false,
            ),
          (r) => firstError(r.results.map((x) => x.errorCode)),
        );
        return items.map((i) => {
          const r = res.results.find((x) => x.resourceName === i.name && x.resourceType === RESOURCE_TYPE[i.kind]);
          if (!r) return { kind: i.kind, name: i.name, ok: false as const, error: kafkaErrorInfo(-1, 'No result for this resource in the DescribeConfigs response') };
          if (r.errorCode !== 0) return { kind: i.kind, name: i.name, ok: false as const, error: kafkaErrorInfo(r.errorCode, r.errorMessage) };
          const value: ConfigOverrides = {};
          for (const c of r.configs) if (c.configSource === OVERRIDE_SOURCE[i.kind] && c.value != null) value[c.name] = c.value;
          return { kind: i.kind, name: i.name, ok: true as const, value };
        });
      } catch (err) {
        return failAll(kind, items.map((i) => i.name), err);
      }
    }),
  );
  return results.flat();
}

/**
 * IncrementalAlterConfigs; each resource is applied atomically by Kafka and answered on
 * its own (one failing resource does not undo another).
 */
export async function incrementalAlterConfigs(kafka: PlatformaticKafkaGateway, alterations: ConfigAlteration[], validateOnly = false): Promise<ConfigResult<null>[]> {
  const nonEmpty = alterations.filter((a) => a.ops.length > 0);
  const groups = byDestination(nonEmpty);
  const results = await Promise.all(
    groups.map(async ({ target, items }): Promise<ConfigResult<null>[]> => {
      const kind = items[0]!.kind;
      try {
        const res = await kafka.sendRequest(
          'IncrementalAlterConfigs',
          target,
          (conn) =>
            incrementalAlterConfigsV1.api.async(
              conn,
              items.map((a) => ({
                resourceType: RESOURCE_TYPE[a.kind],
                resourceName: a.name,
                configs: a.ops.map((o) => (o.op === 'DELETE' ? { name: o.name, configOperation: OP_CODES.DELETE } : { name: o.name, configOperation: OP_CODES[o.op], value: o.value })),
              })),
              validateOnly,
            ),
          (r) => firstError(r.responses.map((x) => x.errorCode)),
        );
        return items.map((a) => {
          const r = res.responses.find((x) => x.resourceName === a.name && x.resourceType === RESOURCE_TYPE[a.kind]);
          if (!r) return { kind: a.kind, name: a.name, ok: false as const, error: kafkaErrorInfo(-1, 'No result for this resource in the IncrementalAlterConfigs response') };
          if (r.errorCode !== 0) return { kind: a.kind, name: a.name, ok: false as const, error: kafkaErrorInfo(r.errorCode, r.errorMessage) };
          return { kind: a.kind, name: a.name, ok: true as const, value: null };
        });
      } catch (err) {
        return failAll(kind, items.map((i) => i.name), err);
      }
    }),
  );
  return results.flat();
}
