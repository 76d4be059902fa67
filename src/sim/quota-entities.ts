// The simulated cluster's client quota entities (user / client-id): Kafka's quota lookup
// precedence, the bucket (sensor) identity Kafka derives from it, AlterClientQuotas validation
// and DescribeClientQuotas filter matching. Pure functions over plain data.
//
// This is the simulator's own code, not the gateway's: src/domain/quota-entity.ts has the
// gateway's precedence lookup (it predicts the broker's quota, src/services/quotas/broker-policy.ts),
// and the two must not share an implementation, or a bug in it would be on both sides of every
// test (issue 11 item 4). This file started as a copy of that module when the simulator was
// given its own (issue 13); change each on its own, against Kafka's sources.
//
// Kafka classes mirrored:
// - ClientQuotaManager (+ its DefaultQuotaCallback): quotaMetricTags / quotaLimit / findQuota.
// - ClientQuotaControlManager: validateEntity / validateQuotaKeyValue / alterClientQuotaEntity.
// - ClientQuotasImage.describe: DescribeClientQuotas filters.
// - QuotaConfigs: allowed keys and their types.
// - org.apache.kafka.common.utils.Sanitizer: user-name sanitizing used in keys and tags.

import { isIP } from 'node:net';

export const ENTITY_USER = 'user';
export const ENTITY_CLIENT_ID = 'client-id';
/** IP entities: connection_creation_rate only, never combined with user / client-id (stored and described, not enforced). */
export const ENTITY_IP = 'ip';
/** Name Kafka uses for default entities in ZK paths and sensor names. */
export const DEFAULT_ENTITY_NAME = '<default>';

export const ERROR_UNSUPPORTED_VERSION = 35;
export const ERROR_INVALID_REQUEST = 42;

/**
 * A client quota entity. A key that is present with value `null` is the DEFAULT entity for that
 * type; an absent (or undefined) key means the entity has no component of that type.
 */
export interface QuotaEntity {
  readonly user?: string | null;
  readonly clientId?: string | null;
  /** An ip entity stands alone (Kafka refuses to combine it with user / client-id). */
  readonly ip?: string | null;
}

/** Wire form (AlterClientQuotas / DescribeClientQuotas EntityData). */
export interface EntityComponent {
  readonly entityType: string;
  readonly entityName: string | null;
}

export type QuotaKey = 'producer_byte_rate' | 'consumer_byte_rate' | 'request_percentage' | 'controller_mutation_rate';
export type IpQuotaKey = 'connection_creation_rate';

/** QuotaConfigs.buildUserClientQuotaConfigDef: same keys for user, client-id and user+client-id. */
export const QUOTA_KEY_TYPES: Readonly<Record<QuotaKey, 'LONG' | 'DOUBLE'>> = Object.freeze({
  producer_byte_rate: 'LONG',
  consumer_byte_rate: 'LONG',
  request_percentage: 'DOUBLE',
  controller_mutation_rate: 'DOUBLE',
});

/** QuotaConfigs.ipConfigs: the only key of an ip entity (an INT, at least 0). */
export const IP_QUOTA_KEY_TYPES: Readonly<Record<IpQuotaKey, 'INT'>> = Object.freeze({ connection_creation_rate: 'INT' });

export type QuotaValues = Readonly<Partial<Record<QuotaKey | IpQuotaKey, number>>>;

/** Configured quotas keyed by `entityKey(entity)`; entities without any value are absent. */
export type QuotaTable = ReadonlyMap<string, QuotaValues>;

export interface ApiErrorResult {
  readonly ok: false;
  readonly errorCode: number;
  readonly message: string;
}

export function isQuotaKey(key: string): key is QuotaKey {
  return Object.prototype.hasOwnProperty.call(QUOTA_KEY_TYPES, key);
}

export function hasUser(entity: QuotaEntity): boolean {
  return entity.user !== undefined;
}

export function hasClientId(entity: QuotaEntity): boolean {
  return entity.clientId !== undefined;
}

export function hasIp(entity: QuotaEntity): boolean {
  return entity.ip !== undefined;
}

export function isIpQuotaKey(key: string): key is IpQuotaKey {
  return Object.prototype.hasOwnProperty.call(IP_QUOTA_KEY_TYPES, key);
}

/**
 * ClientQuotaControlManager.isValidIpEntity: null (the default ip entity) or a name
 * InetAddress.getByName resolves. Simulator deviation: no DNS lookups, so only IPv4/IPv6
 * literals and "localhost" count as resolvable; any other host name is refused.
 */
export function isValidIpEntityName(name: string | null): boolean {
  return name === null || name === 'localhost' || isIP(name) !== 0;
}

// ---------------------------------------------------------------------------------------------
// Sanitizing and canonical keys
// ---------------------------------------------------------------------------------------------

/**
 * Kafka's Sanitizer.sanitize: java.net.URLEncoder (UTF-8) with '+' -> %20 and '*' -> %2A.
 * URLEncoder leaves only [A-Za-z0-9.-_*] alone, so also encode what encodeURIComponent keeps
 * but Java does not: ! ' ( ) ~ (and '*', which Kafka encodes on purpose).
 */
export function sanitize(name: string): string {
  return encodeURIComponent(name).replace(/[!'()~*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

/** Sanitizer.desanitize (URLDecoder). */
export function desanitize(sanitized: string): string {
  return decodeURIComponent(sanitized);
}

/**
 * Canonical string key, shaped like Kafka's ZooKeeper config paths (ClientQuotaManager javadoc):
 * `users/<u>`, `users/<u>/clients/<c>`, `clients/<c>`, with `<default>` for defaults.
 * Names are sanitized, so they can never contain '/' or '<' and the key is unambiguous
 * (a user literally named "<default>" becomes "%3Cdefault%3E").
 */
export function entityKey(entity: QuotaEntity): string {
  const parts: string[] = [];
  if (hasUser(entity)) parts.push('users', keyName(entity.user ?? null));
  if (hasClientId(entity)) parts.push('clients', keyName(entity.clientId ?? null));
  if (hasIp(entity)) parts.push('ips', keyName(entity.ip ?? null));
  if (parts.length === 0) throw new RangeError('empty client quota entity has no key');
  return parts.join('/');
}

/** Inverse of entityKey; throws on anything entityKey cannot produce. */
export function parseEntityKey(key: string): QuotaEntity {
  const p = key.split('/');
  if (p.length === 2 && p[0] === 'users') return { user: parseKeyName(p[1]) };
  if (p.length === 2 && p[0] === 'clients') return { clientId: parseKeyName(p[1]) };
  if (p.length === 2 && p[0] === 'ips') return { ip: parseKeyName(p[1]) };
  if (p.length === 4 && p[0] === 'users' && p[2] === 'clients') {
    return { user: parseKeyName(p[1]), clientId: parseKeyName(p[3]) };
  }
  throw new RangeError(`not a client quota entity key: ${key}`);
}

function keyName(name: string | null): string {
  return name === null ? DEFAULT_ENTITY_NAME : sanitize(name);
}

function parseKeyName(part: string): string | null {
  if (part === DEFAULT_ENTITY_NAME) return null;
  if (part === '' || part.includes('<')) throw new RangeError(`bad entity name in key: ${part}`);
  return desanitize(part);
}

// ---------------------------------------------------------------------------------------------
// Entity <-> wire components, AlterClientQuotas validation
// ---------------------------------------------------------------------------------------------

/**
 * Validate wire components into an entity, mirroring ClientQuotaControlManager.validateEntity
 * then configKeysForEntityType (Kafka 4.0): non-empty, no duplicate type, only user /
 * client-id / ip, a name may be null (default) but never the empty string; an ip entity
 * stands alone and must be a valid IP (isValidIpEntityName).
 */
export function entityFromComponents(
  components: readonly EntityComponent[],
): { readonly ok: true; readonly entity: QuotaEntity } | ApiErrorResult {
  if (components.length === 0) return invalid('Invalid empty client quota entity');
  const entity: { user?: string | null; clientId?: string | null; ip?: string | null } = {};
  for (const { entityType, entityName } of components) {
    const field =
      entityType === ENTITY_USER ? 'user' : entityType === ENTITY_CLIENT_ID ? 'clientId' : entityType === ENTITY_IP ? 'ip' : undefined;
    if (field === undefined) return invalid(`Unhandled client quota entity type: ${entityType}`);
    if (entity[field] !== undefined) {
      return invalid(`Invalid client quota entity, duplicate entity entry ${entityType}`);
    }
    if (entityName === '') return invalid(`Empty ${entityType} not supported`);
    entity[field] = entityName;
  }
  if (hasIp(entity)) {
    // Kafka's message, its missing space included ("shouldnot").
    if (hasUser(entity) || hasClientId(entity)) {
      return invalid('Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId');
    }
    if (!isValidIpEntityName(entity.ip ?? null)) return invalid(`${entity.ip} is not a valid IP or resolvable host.`);
  }
  return { ok: true, entity };
}

/** One AlterClientQuotas op: `remove: true` (or a null value) deletes the key. */
export interface QuotaOp {
  readonly key: string;
  readonly value?: number | null;
  readonly remove?: boolean;
}

/**
 * Validate an entity's ops, mirroring ClientQuotaControlManager.alterClientQuotas /
 * validateQuotaKeyValue: duplicate keys rejected; set ops must name a known key; LONG keys must
 * be whole numbers (Kafka's 1e-6 epsilon test). Removals are NOT key-checked (Kafka silently
 * ignores removing a key that is not set). Addition (Kafka does not check it):
 * controller_mutation_rate must be > 0, since a zero rate means an infinite throttle.
 * Returns key -> value (null = remove).
 */
export function validateQuotaOps(
  ops: readonly QuotaOp[],
  ip = false,
): { readonly ok: true; readonly changes: ReadonlyMap<string, number | null> } | ApiErrorResult {
  const collected = collectOps(ops);
  if (!collected.ok) return collected;
  const changes = collected.changes;
  for (const [key, value] of changes) {
    if (value === null) continue;
    const error = validateQuotaValue(key, value, ip);
    if (error !== undefined) return invalid(error);
  }
  return { ok: true, changes };
}

/** First pass of ClientQuotaControlManager.alterClientQuotas: reject duplicate keys. */
function collectOps(ops: readonly QuotaOp[]): { readonly ok: true; readonly changes: Map<string, number | null> } | ApiErrorResult {
  const changes = new Map<string, number | null>();
  for (const op of ops) {
    if (changes.has(op.key)) return invalid(`Duplicate quota key ${op.key} not updating quota for this entity`);
    changes.set(op.key, op.remove === true || op.value === null || op.value === undefined ? null : op.value);
  }
  return { ok: true, changes };
}

/**
 * Reason a single set-op is invalid, or undefined when it is fine. `ip` = the op is for an ip
 * entity, whose only key is connection_creation_rate (an INT).
 */
export function validateQuotaValue(key: string, value: number, ip = false): string | undefined {
  if (ip) {
    if (!isIpQuotaKey(key)) return `Invalid configuration key ${key}`;
    if (!Number.isFinite(value)) return `Configuration ${key} must be a finite number`;
    if (Math.abs(Math.trunc(value + 1e-6) - value) > 1e-6) return `Configuration ${key} must be a Long value`;
    return undefined;
  }
  if (!isQuotaKey(key)) return `Invalid configuration key ${key}`;
  if (!Number.isFinite(value)) return `Configuration ${key} must be a finite number`;
  if (QUOTA_KEY_TYPES[key] === 'LONG') {
    const epsilon = 1e-6;
    if (Math.abs(Math.trunc(value + epsilon) - value) > epsilon) return `Configuration ${key} must be a Long value`;
  }
  if (key === 'controller_mutation_rate' && !(value > 0)) return `Configuration ${key} must be greater than 0`;
  return undefined;
}

/**
 * Apply one entity's alteration to a table (ClientQuotaControlManager.alterClientQuotaEntity +
 * replay): validate entity and ops, set/remove keys, drop the entity when no key remains.
 */
export function applyQuotaAlteration(
  table: QuotaTable,
  components: readonly EntityComponent[],
  ops: readonly QuotaOp[],
): { readonly ok: true; readonly table: QuotaTable; readonly entity: QuotaEntity } | ApiErrorResult {
  // Kafka's order: duplicate keys, then the entity, then each value.
  const collected = collectOps(ops);
  if (!collected.ok) return collected;
  const checkedEntity = entityFromComponents(components);
  if (!checkedEntity.ok) return checkedEntity;
  const checkedOps = validateQuotaOps(ops, hasIp(checkedEntity.entity));
  if (!checkedOps.ok) return checkedOps;
  const key = entityKey(checkedEntity.entity);
  const values: Record<string, number> = { ...(table.get(key) ?? {}) };
  for (const [k, v] of checkedOps.changes) {
    if (v === null) delete values[k];
    else values[k] = v;
  }
  const next = new Map(table);
  if (Object.keys(values).length === 0) next.delete(key);
  else next.set(key, Object.freeze(values));
  return { ok: true, table: next, entity: checkedEntity.entity };
}

// ---------------------------------------------------------------------------------------------
// Lookup precedence and bucket identity (ClientQuotaManager / DefaultQuotaCallback)
// ---------------------------------------------------------------------------------------------

/**
 * Kafka's quota metric tags: {user: sanitized user or "", client-id: client id or ""}.
 * They name the sensor, hence the token bucket: ONE bucket per distinct tags value.
 */
export interface QuotaMetricTags {
  readonly user: string;
  readonly clientId: string;
}

/** 1..8 in ClientQuotaManager's documented order of precedence. */
export type QuotaLevel = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;

export interface ResolvedQuota {
  readonly value: number;
  /** The configured entity the value came from. */
  readonly entity: QuotaEntity;
  readonly level: QuotaLevel;
  readonly tags: QuotaMetricTags;
  /** Stable bucket id, `bucketKey(tags)`. */
  readonly bucketKey: string;
}

/**
 * The 8 levels, most specific first (ClientQuotaManager javadoc):
 * /users/<user>/clients/<client-id>, /users/<user>/clients/<default>, /users/<user>,
 * /users/<default>/clients/<client-id>, /users/<default>/clients/<default>, /users/<default>,
 * /clients/<client-id>, /clients/<default>.
 * `tagsUser`/`tagsClient` say which real values end up in the metric tags when that level
 * matches: default-entity matches still use the ACTUAL user / client id, so e.g. a
 * /clients/<default> quota gives each client id its own bucket.
 */
const PRECEDENCE: ReadonlyArray<{
  readonly level: QuotaLevel;
  readonly entity: (user: string, clientId: string) => QuotaEntity;
  readonly tagsUser: boolean;
  readonly tagsClient: boolean;
}> = [
  { level: 1, entity: (u, c) => ({ user: u, clientId: c }), tagsUser: true, tagsClient: true },
  { level: 2, entity: (u) => ({ user: u, clientId: null }), tagsUser: true, tagsClient: true },
  { level: 3, entity: (u) => ({ user: u }), tagsUser: true, tagsClient: false },
  { level: 4, entity: (_u, c) => ({ user: null, clientId: c }), tagsUser: true, tagsClient: true },
  { level: 5, entity: () => ({ user: null, clientId: null }), tagsUser: true, tagsClient: true },
  { level: 6, entity: () => ({ user: null }), tagsUser: true, tagsClient: false },
  { level: 7, entity: (_u, c) => ({ clientId: c }), tagsUser: false, tagsClient: true },
  { level: 8, entity: () => ({ clientId: null }), tagsUser: false, tagsClient: true },
];

/** Value of `key` configured on exactly `entity`, if any. */
export function configuredValue(table: QuotaTable, key: QuotaKey, entity: QuotaEntity): number | undefined {
  return table.get(entityKey(entity))?.[key];
}

/**
 * DefaultQuotaCallback.quotaMetricTags: walk levels 1..6 and stop at the first entity that has
 * a value for THIS quota type (each quota type has its own ClientQuotaManager); otherwise fall
 * back to client-id tags ("", clientId), which levels 7/8 use. `user` is the principal name.
 * (Kafka's single-level fast paths yield the same tags whenever a quota applies.)
 */
export function quotaMetricTags(table: QuotaTable, key: QuotaKey, user: string, clientId: string): QuotaMetricTags {
  for (const step of PRECEDENCE.slice(0, 6)) {
    if (configuredValue(table, key, step.entity(user, clientId)) !== undefined) return tagsFor(step, user, clientId);
  }
  return { user: '', clientId };
}

/**
 * DefaultQuotaCallback.quotaLimit / findQuota: from the tags' shape, search
 * both non-empty -> levels 1, 2, 4, 5; user only -> 3, 6; client only -> 7, 8; neither -> none.
 * Kafka quirk reproduced on purpose: with an EMPTY client id, a level-1/2/4/5 match yields tags
 * (user, "") and the limit is then looked up at levels 3/6 only.
 */
export function quotaLimit(
  table: QuotaTable,
  key: QuotaKey,
  tags: QuotaMetricTags,
): { readonly value: number; readonly entity: QuotaEntity; readonly level: QuotaLevel } | undefined {
  const levels: readonly QuotaLevel[] =
    tags.user !== '' && tags.clientId !== '' ? [1, 2, 4, 5] : tags.user !== '' ? [3, 6] : tags.clientId !== '' ? [7, 8] : [];
  const user = tags.user === '' ? '' : desanitize(tags.user);
  for (const level of levels) {
    const entity = PRECEDENCE[level - 1].entity(user, tags.clientId);
    const value = configuredValue(table, key, entity);
    if (value !== undefined) return { value, entity, level };
  }
  return undefined;
}

/**
 * Resolve the quota for a request's (principal name, client id). undefined = no quota of this
 * type applies = unlimited (Kafka: Long.MAX_VALUE bound / UnboundedControllerMutationQuota).
 */
export function resolveQuota(table: QuotaTable, key: QuotaKey, user: string, clientId: string): ResolvedQuota | undefined {
  const tags = quotaMetricTags(table, key, user, clientId);
  const limit = quotaLimit(table, key, tags);
  if (limit === undefined) return undefined;
  return { ...limit, tags, bucketKey: bucketKey(tags) };
}

/**
 * Bucket id from tags, like Kafka's sensor name suffix `String.join(":", tags.values())`.
 * The sanitized user cannot contain ':' (URL-encoded), so splitting at the first ':' is exact.
 */
export function bucketKey(tags: QuotaMetricTags): string {
  return `${tags.user}:${tags.clientId}`;
}

function tagsFor(step: (typeof PRECEDENCE)[number], user: string, clientId: string): QuotaMetricTags {
  return { user: step.tagsUser ? sanitize(user) : '', clientId: step.tagsClient ? clientId : '' };
}

/** An INVALID_REQUEST answer with Kafka's message. */
export function invalid(message: string): ApiErrorResult {
  return { ok: false, errorCode: ERROR_INVALID_REQUEST, message };
}
