// What DescribeConfigs v4 and IncrementalAlterConfigs v1 share: config resources, per-resource
// results, and where each resource is sent.
//
// Routing: a BROKER resource is read from and written to that broker (Kafka's ConfigHelper
// refuses "Unexpected broker id" otherwise; in KRaft the broker forwards the write to the
// controller). TOPIC resources go to any broker in one request.
import { ConfigResourceTypes, ConfigSources } from '@platformatic/kafka';
import { kafkaErrorName, NONE, toKafkaRequestError } from '../errors-map.js';
import type { KafkaErrorInfo } from '../types.js';

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

export type ConfigResult<T> =
  | { kind: ConfigResourceKind; name: string; ok: true; value: T }
  | { kind: ConfigResourceKind; name: string; ok: false; error: KafkaErrorInfo };

/** One value a config takes at one level (DescribeConfigs' include_synonyms), highest precedence first. */
export interface ConfigSynonym {
  name: string;
  /** null when the config is sensitive, or the level holds no value. */
  value: string | null;
  /** Kafka's ConfigSource name: DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG, ... */
  source: string;
}

/** One config of a resource as DescribeConfigs answers it with synonyms. */
export interface ConfigDetail {
  name: string;
  /** null when sensitive (Kafka sends none) or unset. */
  value: string | null;
  source: string;
  isSensitive: boolean;
  isReadOnly: boolean;
  synonyms: ConfigSynonym[];
}

/** Overrides only: name -> value of configs set on the resource itself (not defaults, not static). */
export type ConfigOverrides = Record<string, string>;

export const RESOURCE_TYPE = { topic: ConfigResourceTypes.TOPIC, broker: ConfigResourceTypes.BROKER } as const;
/** The config source that means "set on this resource": per-topic override / per-broker dynamic config. */
export const OVERRIDE_SOURCE = { topic: ConfigSources.TOPIC_CONFIG, broker: ConfigSources.DYNAMIC_BROKER_CONFIG } as const;

export function firstError(codes: number[]): string {
  const c = codes.find((x) => x !== 0);
  return c === undefined ? NONE : kafkaErrorName(c);
}

export function failAll<T>(kind: ConfigResourceKind, names: string[], err: unknown): ConfigResult<T>[] {
  const e = toKafkaRequestError(err);
  return names.map((name) => ({ kind, name, ok: false as const, error: e.kafka }));
}

/** Groups resources by where they must be sent: topics together, each broker on its own. */
export function byDestination<T extends { kind: ConfigResourceKind; name: string }>(
  items: T[],
): { target: 'any' | { broker: number }; items: T[] }[] {
  const topics = items.filter((i) => i.kind === 'topic');
  const out: { target: 'any' | { broker: number }; items: T[] }[] = topics.length ? [{ target: 'any', items: topics }] : [];
  const brokers = new Map<string, T[]>();
  for (const i of items.filter((x) => x.kind === 'broker')) brokers.set(i.name, [...(brokers.get(i.name) ?? []), i]);
  for (const [name, list] of brokers) out.push({ target: { broker: Number(name) }, items: list });
  return out;
}
