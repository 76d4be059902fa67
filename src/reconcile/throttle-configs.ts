// The read and apply halves of a throttle sync (throttle-sync.ts): the throttle configs read
// (DescribeConfigs overrides) as the domain's values, the domain's alterations sent
// (IncrementalAlterConfigs), and the rates they leave on the brokers.
import {
  FOLLOWER_THROTTLED_RATE,
  FOLLOWER_THROTTLED_REPLICAS,
  LEADER_THROTTLED_RATE,
  LEADER_THROTTLED_REPLICAS,
  LOG_DIRS_THROTTLED_RATE,
  type ResourceAlteration,
  type ThrottleConfigValues,
} from '../domain/reassignment/index.js';
import type { ConfigResult, KafkaAdmin } from '../kafka/kafka-admin.js';
import type { KafkaErrorInfo } from '../kafka/types.js';

export const THROTTLE_KEYS = [
  LEADER_THROTTLED_REPLICAS,
  FOLLOWER_THROTTLED_REPLICAS,
  LEADER_THROTTLED_RATE,
  FOLLOWER_THROTTLED_RATE,
  LOG_DIRS_THROTTLED_RATE,
];
export const UNKNOWN_TOPIC = 3;

/** A resource whose read or write failed (retried at the next pass). */
export interface ThrottleFailure {
  resource: string;
  error: KafkaErrorInfo;
}

/** A broker's throttle rates after a pass (null: none). */
export interface BrokerRates {
  broker: number;
  leader: number | null;
  follower: number | null;
}

/**
 * Sends the domain's config alterations in one IncrementalAlterConfigs call; answers a failure
 * per resource Kafka refused, whose `kind/name` it also adds to `failed`.
 */
export async function applyAlterations(
  kafka: KafkaAdmin,
  alterations: readonly ResourceAlteration[],
  failed = new Set<string>(),
): Promise<ThrottleFailure[]> {
  const results = await kafka.incrementalAlterConfigs(
    alterations.map((a) => ({
      kind: a.resourceType,
      name: a.resourceName,
      ops: a.configs.map((c) =>
        c.operation === 'DELETE' ? { name: c.name, op: 'DELETE' as const } : { name: c.name, op: 'SET' as const, value: c.value ?? '' },
      ),
    })),
  );
  const failures: ThrottleFailure[] = [];
  for (const r of results) {
    if (r.ok) continue;
    failed.add(`${r.kind}/${r.name}`);
    failures.push({ resource: `${r.kind}/${r.name}`, error: r.error });
  }
  return failures;
}

/** Current values from DescribeConfigs overrides; unread resources are left out (the domain skips them). */
export function toConfigValues(results: ConfigResult<Record<string, string>>[]): {
  values: ThrottleConfigValues;
  deletedTopics: string[];
  failures: ThrottleFailure[];
} {
  const topics: Record<string, { leader: string | null; follower: string | null }> = {};
  const brokers: Record<string, { leaderRate: string | null; followerRate: string | null; logDirRate: string | null }> = {};
  const deletedTopics: string[] = [];
  const failures: ThrottleFailure[] = [];
  for (const r of results) {
    if (!r.ok) {
      if (r.kind === 'topic' && r.error.code === UNKNOWN_TOPIC) deletedTopics.push(r.name);
      else failures.push({ resource: `${r.kind}/${r.name}`, error: r.error });
      continue;
    }
    if (r.kind === 'topic')
      topics[r.name] = { leader: r.value[LEADER_THROTTLED_REPLICAS] ?? null, follower: r.value[FOLLOWER_THROTTLED_REPLICAS] ?? null };
    else
      brokers[r.name] = {
        leaderRate: r.value[LEADER_THROTTLED_RATE] ?? null,
        followerRate: r.value[FOLLOWER_THROTTLED_RATE] ?? null,
        logDirRate: r.value[LOG_DIRS_THROTTLED_RATE] ?? null,
      };
  }
  return { values: { topics, brokers }, deletedTopics, failures };
}

/** Rates on the brokers read, after `alterations` (those of `failed` resources did not apply). */
export function ratesAfter(values: ThrottleConfigValues, alterations: readonly ResourceAlteration[], failed: Set<string>): BrokerRates[] {
  return Object.entries(values.brokers).map(([broker, v]) => {
    const ops = failed.has(`broker/${broker}`)
      ? []
      : (alterations.find((a) => a.resourceType === 'broker' && a.resourceName === broker)?.configs ?? []);
    const after = (name: string, before: string | null | undefined): number | null => {
      const op = ops.find((o) => o.name === name);
      const value = op ? (op.operation === 'DELETE' ? null : op.value) : (before ?? null);
      return value === null ? null : Number(value);
    };
    return {
      broker: Number(broker),
      leader: after(LEADER_THROTTLED_RATE, v.leaderRate),
      follower: after(FOLLOWER_THROTTLED_RATE, v.followerRate),
    };
  });
}
