// A change of a topic's or a broker's own configs (PATCH .../configs): which keys the gateway
// keeps for itself, and what DescribeConfigs would answer after the change, for validateOnly
// (Kafka validates without applying and answers nothing but an error code).

/** The level a change writes: a topic's overrides, or one broker's dynamic configs. */
export type ConfigLevel = 'topic' | 'broker';

/** The ConfigSource a PATCH writes at (Kafka's names). */
export const OWN_SOURCE: Record<ConfigLevel, string> = { topic: 'DYNAMIC_TOPIC_CONFIG', broker: 'DYNAMIC_BROKER_CONFIG' };

/**
 * Replication throttles belong to the gateway's throttle machinery (/throttles, reassignments):
 * it records who set which entry and restores prior values when it removes its own. A write
 * here would be invisible to that ledger: the next sync would overwrite it, or a removal would
 * restore a value over it. So they are refused here.
 */
export const GATEWAY_OWNED_KEYS: Record<ConfigLevel, readonly string[]> = {
  topic: ['leader.replication.throttled.replicas', 'follower.replication.throttled.replicas'],
  broker: ['leader.replication.throttled.rate', 'follower.replication.throttled.rate', 'replica.alter.log.dirs.io.max.bytes.per.second'],
};

export interface ConfigChange {
  set: Readonly<Record<string, string>>;
  delete: readonly string[];
}

export interface DescribedConfig {
  name: string;
  value: string | null;
  source: string;
  isSensitive: boolean;
  isReadOnly: boolean;
  synonyms: { name: string; value: string | null; source: string }[];
}

/** Milliseconds per unit of the broker synonyms of time configs (log.retention.hours for retention.ms, ...). */
const UNIT_MS: Record<string, number> = { hours: 3_600_000, minutes: 60_000 };

/**
 * The value a config takes from one of its synonyms. Kafka lists a topic's time configs with
 * the broker settings they default to, in the broker's unit (retention.ms ← log.retention.hours
 * = 168): converted as the broker resolves them (KafkaConfig's logRetentionTimeMillis).
 */
export function synonymValue(configName: string, synonym: { name: string; value: string | null }): string | null {
  const unit = /\.(hours|minutes)$/.exec(synonym.name)?.[1];
  if (synonym.value === null || unit === undefined || !configName.endsWith('.ms') || !/^-?\d+$/.test(synonym.value)) return synonym.value;
  return String(Number(synonym.value) * UNIT_MS[unit]);
}

/** Keys of `change` the gateway owns at `level`, in request order (set first, then delete). */
export function gatewayOwnedKeys(level: ConfigLevel, change: ConfigChange): string[] {
  const owned = new Set(GATEWAY_OWNED_KEYS[level]);
  return [...new Set([...Object.keys(change.set), ...change.delete])].filter((k) => owned.has(k));
}

/** Keys both set and deleted: Kafka refuses a repeated key (INVALID_REQUEST); it is a malformed request. */
export function keysSetAndDeleted(change: ConfigChange): string[] {
  return change.delete.filter((k) => Object.hasOwn(change.set, k));
}

/**
 * `current` (DescribeConfigs with synonyms) as it would read after `change` at `level`: a set
 * puts the new value on top of the config's synonyms, a delete takes the resource's own level
 * off, and the next level down (dynamic default, static, default) shows through, as Kafka
 * resolves it. A name Kafka does not list (a broker accepts unknown names) is added when set.
 */
export function projectChange(current: readonly DescribedConfig[], level: ConfigLevel, change: ConfigChange): DescribedConfig[] {
  const own = OWN_SOURCE[level];
  const byName = new Map(current.map((c) => [c.name, c]));
  for (const name of Object.keys(change.set))
    if (!byName.has(name)) byName.set(name, { name, value: null, source: own, isSensitive: false, isReadOnly: false, synonyms: [] });
  const out: DescribedConfig[] = [];
  for (const c of byName.values()) {
    const below = c.synonyms.filter((s) => s.source !== own);
    let synonyms = c.synonyms;
    if (Object.hasOwn(change.set, c.name)) {
      synonyms = [{ name: c.name, value: c.isSensitive ? null : change.set[c.name], source: own }, ...below];
    } else if (change.delete.includes(c.name)) {
      synonyms = below;
      // Deleting a name that only ever existed at this level (an unknown broker config) removes it.
      if (below.length === 0 && c.source === own) continue;
    } else {
      out.push(c);
      continue;
    }
    const top = synonyms[0];
    out.push({ ...c, value: top ? synonymValue(c.name, top) : null, source: top ? top.source : 'DEFAULT_CONFIG', synonyms });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
