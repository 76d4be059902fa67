// Client quotas of the simulated cluster: the quota table AlterClientQuotas /
// DescribeClientQuotas work on, and the KIP-599 controller mutation quota buckets that
// CreateTopics, DeleteTopics and CreatePartitions charge.
//
// The maths is the simulator's own, not the gateway's src/domain (issue 11 item 4: a bug
// shared by both would pass every test): precedence lookup, bucket identity and entity/filter
// checks in ./quota-entities.ts, the token bucket in ./mutation-bucket.ts. This file only
// holds the state and speaks Kafka's wire-level behaviour around it:
// - ClientQuotaStore mirrors the KRaft controller's ClientQuotaControlManager (alter, with
//   Kafka 4.0's validation order and messages) and ClientQuotasImage.describe.
// - ControllerMutationQuotaManager mirrors ControllerMutationQuotaManager: one token bucket
//   per quota metric tags (Kafka's sensor), created FULL on first use; the rate is looked up
//   again for every request, so a quota change applies to the next request and keeps the
//   bucket's tokens (MutationSensor.reconfigure). A removed quota means unlimited: the bucket is left
//   alone (Kafka's sensor lingers too) and picks up the new rate if a quota comes back.
import {
  applyQuotaAlteration,
  entityFromComponents,
  ENTITY_CLIENT_ID,
  ENTITY_IP,
  ENTITY_USER,
  ERROR_INVALID_REQUEST,
  hasClientId,
  hasIp,
  hasUser,
  isIpQuotaKey,
  isQuotaKey,
  QUOTA_KEY_TYPES,
  resolveQuota,
  type ApiErrorResult,
  type EntityComponent,
  type QuotaEntity,
  type QuotaTable,
  type ResolvedQuota,
} from './quota-entities.js';
import { describeClientQuotas, type DescribedQuota, type FilterComponent } from './quota-describe.js';
import { KAFKA_DEFAULT_WINDOW, MutationSensor, throttleLeftMs, type MutationQuotaWindow, type SensorSnapshot } from './mutation-bucket.js';
import type { Clock } from './clock.js';

/**
 * One request's view of its controller mutation quota, as Kafka's
 * ControllerMutationQuota: strict mode checks before it records and refuses when the
 * bucket is already negative; permissive mode records and never refuses.
 */
export interface ControllerMutationQuota {
  /** Charges `cost` partitions; false = refused (strict mode only): answer 89. */
  tryCharge(cost: number): boolean;
  /** throttle_time_ms for the response. */
  throttleTimeMs(): number;
}

/** Kafka's principal name for unauthenticated connections (KafkaPrincipal.ANONYMOUS). */
export const ANONYMOUS_USER = 'ANONYMOUS';
export const CONTROLLER_MUTATION_RATE = 'controller_mutation_rate';

/** Kafka orders a {user, client-id} HashMap client-id first: responses list it that way. */
export function kafkaEntityComponents(entity: QuotaEntity): EntityComponent[] {
  const out: EntityComponent[] = [];
  if (hasClientId(entity)) out.push({ entityType: ENTITY_CLIENT_ID, entityName: entity.clientId ?? null });
  if (hasUser(entity)) out.push({ entityType: ENTITY_USER, entityName: entity.user ?? null });
  if (hasIp(entity)) out.push({ entityType: ENTITY_IP, entityName: entity.ip ?? null });
  return out;
}

export interface AlterOp {
  key: string;
  value: number;
  remove: boolean;
}

export interface AlterEntry {
  entity: readonly EntityComponent[];
  ops: readonly AlterOp[];
}

export interface AlterResult {
  /** The entity as Kafka echoes it (duplicate types collapsed, client-id first). */
  entity: EntityComponent[];
  errorCode: number;
  errorMessage: string | null;
}

/**
 * AlterClientQuotasRequest.entries() turns each entity into a Java HashMap: a type given twice
 * keeps its last name. Kafka's own iteration order puts client-id before user.
 */
function collapse(components: readonly EntityComponent[]): EntityComponent[] {
  const byType = new Map<string, string | null>();
  for (const c of components) byType.set(c.entityType, c.entityName);
  const order = (t: string): number => (t === ENTITY_CLIENT_ID ? 0 : t === ENTITY_USER ? 1 : 2);
  return [...byType.entries()].sort((a, b) => order(a[0]) - order(b[0])).map(([entityType, entityName]) => ({ entityType, entityName }));
}

/** ClientQuotaEntity.toString(): `ClientQuotaEntity(entries={client-id=a, user=null})`. */
function javaEntityString(components: readonly EntityComponent[]): string {
  return `ClientQuotaEntity(entries={${components.map((c) => `${c.entityType}=${c.entityName ?? 'null'}`).join(', ')}})`;
}

// Long.MAX_VALUE (2^63 - 1) is 2^63 as a double.
const LONG_MAX = 2 ** 63;
const INT_MAX = 2147483647;

/**
 * ClientQuotaControlManager.validateQuotaKeyValue as of Kafka 4.0. One simulator addition:
 * NaN and infinities are refused (Kafka would store them; the token bucket cannot use them).
 */
export function kafkaQuotaValueError(key: string, value: number, ip = false): string | undefined {
  if (ip) {
    // QuotaConfigs.ipConfigs: connection_creation_rate, an INT.
    if (!isIpQuotaKey(key)) return `Invalid configuration key ${key}`;
    if (value <= 0) return `Quota ${key} must be greater than 0`;
    if (value > INT_MAX) return `Proposed value for ${key} is too large for an INT.`;
    if (Math.abs(value % 1) > 1e-6) return `${key} cannot be a fractional value.`;
    if (!Number.isFinite(value)) return `Configuration ${key} must be a finite number`;
    return undefined;
  }
  if (!isQuotaKey(key)) return `Invalid configuration key ${key}`;
  if (value <= 0) return `Quota ${key} must be greater than 0`;
  if (QUOTA_KEY_TYPES[key] === 'LONG') {
    if (value > LONG_MAX) return `Proposed value for ${key} is too large for a LONG.`;
    if (Math.abs(value % 1) > 1e-6) return `${key} cannot be a fractional value.`;
  }
  if (!Number.isFinite(value)) return `Configuration ${key} must be a finite number`;
  return undefined;
}

/** The cluster's client quota table (every key: byte rates, request_percentage, mutation rate). */
export class ClientQuotaStore {
  private current: QuotaTable = new Map();
  private readonly listeners = new Set<() => void>();

  /** Immutable snapshot; replaced on every change. */
  get table(): QuotaTable {
    return this.current;
  }

  /** Called after every applied alteration (not for validateOnly). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** DescribeClientQuotas (ClientQuotasImage.describe): filter errors come back as ApiErrorResult. */
  describe(components: readonly FilterComponent[], strict: boolean): { ok: true; entries: readonly DescribedQuota[] } | ApiErrorResult {
    return describeClientQuotas(this.current, components, strict);
  }

  /**
   * AlterClientQuotas as the KRaft controller answers it (ClientQuotaControlManager, 4.0):
   * - one result per distinct entity, in order of first appearance;
   * - a key given twice, or an entity given again, answers INVALID_REQUEST
   *   "Ignoring duplicate entity ClientQuotaEntity(entries={...})" (Kafka's duplicate-key
   *   message is overwritten by that one; a repeated entity's first alteration still applies);
   * - entity checks (domain entityFromComponents), then each value (kafkaQuotaValueError);
   *   an entity with any bad value changes nothing;
   * - removing a key that is not set is silently fine; validateOnly changes nothing.
   * The whole batch is applied at once (ControllerResult.atomicOf).
   */
  alter(entries: readonly AlterEntry[], validateOnly: boolean): AlterResult[] {
    const results = new Map<string, AlterResult>();
    let table = this.current;
    for (const entry of entries) {
      const entity = collapse(entry.entity);
      const id = JSON.stringify(entity);
      const fail = (message: string): void => {
        results.set(id, { entity, errorCode: ERROR_INVALID_REQUEST, errorMessage: message });
      };
      const keys = new Set<string>();
      let duplicateKey = false;
      for (const op of entry.ops) {
        if (keys.has(op.key)) duplicateKey = true;
        keys.add(op.key);
      }
      if (duplicateKey || results.has(id)) {
        fail(`Ignoring duplicate entity ${javaEntityString(entity)}`);
        continue;
      }
      const checked = entityFromComponents(entity);
      if (!checked.ok) {
        fail(checked.message);
        continue;
      }
      const ip = hasIp(checked.entity);
      const bad = entry.ops.map((op) => (op.remove ? undefined : kafkaQuotaValueError(op.key, op.value, ip))).find((m) => m !== undefined);
      if (bad !== undefined) {
        fail(bad);
        continue;
      }
      const applied = applyQuotaAlteration(
        table,
        entity,
        entry.ops.map((op) => (op.remove ? { key: op.key, remove: true } : { key: op.key, value: op.value })),
      );
      if (!applied.ok) {
        fail(applied.message);
        continue;
      }
      table = applied.table;
      results.set(id, { entity, errorCode: 0, errorMessage: null });
    }
    if (!validateOnly && table !== this.current) {
      this.current = table;
      for (const l of this.listeners) l();
    }
    return [...results.values()];
  }
}

export interface MutationQuotaOptions {
  /** controller.quota.window.num, default 11. */
  windowNum?: number;
  /** controller.quota.window.size.seconds, default 1. */
  windowSizeSeconds?: number;
}

/** A quota that never refuses and never throttles: no controller_mutation_rate applies. */
export const UNBOUNDED_MUTATION_QUOTA: ControllerMutationQuota = Object.freeze({
  tryCharge: () => true,
  throttleTimeMs: () => 0,
});

/** The KIP-599 buckets of the cluster, keyed by Kafka's quota metric tags. */
export class ControllerMutationQuotaManager {
  readonly window: MutationQuotaWindow;
  private readonly buckets = new Map<string, MutationSensor>();

  constructor(
    private readonly store: ClientQuotaStore,
    private readonly clock: Clock,
    opts: MutationQuotaOptions = {},
  ) {
    const windowNum = opts.windowNum ?? KAFKA_DEFAULT_WINDOW.windowNum;
    const windowSizeSeconds = opts.windowSizeSeconds ?? KAFKA_DEFAULT_WINDOW.windowSizeSeconds;
    if (!Number.isInteger(windowNum) || windowNum < 1)
      throw new RangeError(`controller.quota.window.num must be an integer >= 1, got ${windowNum}`);
    if (!Number.isInteger(windowSizeSeconds) || windowSizeSeconds < 1) {
      throw new RangeError(`controller.quota.window.size.seconds must be an integer >= 1, got ${windowSizeSeconds}`);
    }
    this.window = Object.freeze({ windowNum, windowSizeSeconds });
  }

  /** The quota a (user, client id) is under now; user null = unauthenticated (ANONYMOUS). */
  resolve(user: string | null, clientId: string | null): ResolvedQuota | undefined {
    return resolveQuota(this.store.table, CONTROLLER_MUTATION_RATE, user ?? ANONYMOUS_USER, clientId ?? '');
  }

  /**
   * The quota for one request. Strict (CreateTopics v6+, DeleteTopics v5+, CreatePartitions
   * v3+): check before record, refuse while the bucket is negative, a refusal costs nothing.
   * Permissive: record, never refuse. throttleTimeMs() is the throttle of the last violation
   * (a refusal, or a permissive record that left the bucket negative), less the time passed
   * since; 0 when no quota applies.
   */
  forRequest(user: string | null, clientId: string | null, strict: boolean): ControllerMutationQuota {
    const resolved = this.resolve(user, clientId);
    if (resolved === undefined) return UNBOUNDED_MUTATION_QUOTA;
    const key = resolved.bucketKey;
    const rate = resolved.value;
    let lastThrottleMs = 0;
    let lastThrottleAt = 0;
    return {
      tryCharge: (cost: number): boolean => {
        const now = this.clock.now();
        const r = this.bucketFor(key, rate, now).charge(cost, now, strict);
        // Kafka keeps the throttle of the last QuotaViolationException: a strict refusal, or
        // a permissive record that left the bucket negative.
        if (r.violated) {
          lastThrottleMs = r.throttleTimeMs;
          lastThrottleAt = now;
        }
        return r.accepted;
      },
      throttleTimeMs: (): number => throttleLeftMs(lastThrottleMs, lastThrottleAt, this.clock.now()),
    };
  }

  /** Read-only view of a bucket (by `bucketKey`), refilled to now; undefined before first use. */
  inspect(bucketKey: string): SensorSnapshot | undefined {
    return this.buckets.get(bucketKey)?.snapshot(this.clock.now());
  }

  /** Bucket keys in use (Kafka's sensors). */
  bucketKeys(): string[] {
    return [...this.buckets.keys()];
  }

  /** Existing bucket at the current rate, or a new FULL one. */
  private bucketFor(key: string, rate: number, now: number): MutationSensor {
    const existing = this.buckets.get(key);
    if (existing === undefined) {
      const created = new MutationSensor(rate, this.window, now);
      this.buckets.set(key, created);
      return created;
    }
    if (existing.rate !== rate) existing.reconfigure(rate, this.window);
    return existing;
  }
}
