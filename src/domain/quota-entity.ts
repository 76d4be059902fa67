/**
 * Client quota entities (user / client-id), Kafka's quota lookup precedence and the bucket
 * (sensor) identity Kafka derives from it: the gateway's prediction of the quota a broker
 * applies (src/services/quotas/broker-policy.ts). Pure functions over plain data. The broker side
 * (AlterClientQuotas validation, DescribeClientQuotas filters) is the simulator's own, in
 * src/sim/quota-entities.ts.
 *
 * Kafka classes mirrored:
 * - ClientQuotaManager (+ its DefaultQuotaCallback): quotaMetricTags / quotaLimit / findQuota.
 * - QuotaConfigs: allowed keys and their types.
 * - org.apache.kafka.common.utils.Sanitizer: user-name sanitizing used in keys and tags.
 */

export const ENTITY_USER = 'user';
export const ENTITY_CLIENT_ID = 'client-id';
/** IP entities (KIP-612): connection_creation_rate only, never combined with user / client-id. */
export const ENTITY_IP = 'ip';
/** Name Kafka uses for default entities in ZK paths and sensor names. */
export const DEFAULT_ENTITY_NAME = '<default>';

/**
 * A client quota entity. A key that is present with value `null` is the DEFAULT entity for that
 * type; an absent (or undefined) key means the entity has no component of that type.
 */
export interface QuotaEntity {
  readonly user?: string | null;
  readonly clientId?: string | null;
  /** An IP entity stands alone; the user / client-id precedence below never looks at it. */
  readonly ip?: string | null;
}

export type QuotaKey = 'producer_byte_rate' | 'consumer_byte_rate' | 'request_percentage' | 'controller_mutation_rate';

/** QuotaConfigs.buildUserClientQuotaConfigDef: same keys for user, client-id and user+client-id. */
export const QUOTA_KEY_TYPES: Readonly<Record<QuotaKey, 'LONG' | 'DOUBLE'>> = Object.freeze({
  producer_byte_rate: 'LONG',
  consumer_byte_rate: 'LONG',
  request_percentage: 'DOUBLE',
  controller_mutation_rate: 'DOUBLE',
});

/** QuotaConfigs.ipConfigs: the only key of an IP entity (an INT). */
export type IpQuotaKey = 'connection_creation_rate';
export const IP_QUOTA_KEY: IpQuotaKey = 'connection_creation_rate';

export type QuotaValues = Readonly<Partial<Record<QuotaKey | IpQuotaKey, number>>>;

/** Configured quotas keyed by `entityKey(entity)`; entities without any value are absent. */
export type QuotaTable = ReadonlyMap<string, QuotaValues>;

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

/** Build a QuotaTable from [entity, values] pairs (later pairs override earlier keys). */
export function quotaTable(entries: Iterable<readonly [QuotaEntity, QuotaValues]>): QuotaTable {
  const table = new Map<string, QuotaValues>();
  for (const [entity, values] of entries) {
    const k = entityKey(entity);
    const merged = { ...(table.get(k) ?? {}), ...values };
    if (Object.keys(merged).length > 0) table.set(k, Object.freeze(merged));
  }
  return table;
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

export function parseBucketKey(key: string): QuotaMetricTags {
  const i = key.indexOf(':');
  if (i < 0) throw new RangeError(`not a bucket key: ${key}`);
  return { user: key.slice(0, i), clientId: key.slice(i + 1) };
}

/** Precedence level a configured entity belongs to (1 = most specific). */
export function precedenceLevel(entity: QuotaEntity): QuotaLevel {
  const u = hasUser(entity) ? (entity.user === null ? 'default' : 'named') : 'none';
  const c = hasClientId(entity) ? (entity.clientId === null ? 'default' : 'named') : 'none';
  const table: Record<string, QuotaLevel> = {
    'named/named': 1,
    'named/default': 2,
    'named/none': 3,
    'default/named': 4,
    'default/default': 5,
    'default/none': 6,
    'none/named': 7,
    'none/default': 8,
  };
  const level = table[`${u}/${c}`];
  if (level === undefined) throw new RangeError('empty client quota entity');
  return level;
}

function tagsFor(step: (typeof PRECEDENCE)[number], user: string, clientId: string): QuotaMetricTags {
  return { user: step.tagsUser ? sanitize(user) : '', clientId: step.tagsClient ? clientId : '' };
}
