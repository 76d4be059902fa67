// DescribeClientQuotas in the simulator: the request's filter components compiled and checked as
// Kafka checks them, and the configured quotas of the entities that match
// (ClientQuotasImage.describe). The entities and the table are quota-entities.ts's.
import {
  ENTITY_USER,
  ENTITY_CLIENT_ID,
  ENTITY_IP,
  ERROR_UNSUPPORTED_VERSION,
  hasUser,
  hasClientId,
  hasIp,
  parseEntityKey,
  invalid,
  type QuotaEntity,
  type QuotaTable,
  type QuotaValues,
  type ApiErrorResult,
} from './quota-entities.js';

export const MATCH_TYPE_EXACT = 0;
export const MATCH_TYPE_DEFAULT = 1;
export const MATCH_TYPE_SPECIFIED = 2;

export interface FilterComponent {
  readonly entityType: string;
  readonly matchType: number;
  readonly match?: string | null;
}

export interface DescribeFilter {
  /** entity type -> exact name (null = the default entity), from EXACT and DEFAULT components. */
  readonly exact: ReadonlyMap<string, string | null>;
  /** entity types that must merely be present (SPECIFIED; default names match too). */
  readonly specified: ReadonlySet<string>;
  readonly strict: boolean;
}

/**
 * Validate filter components exactly like ClientQuotasImage.describe:
 * empty type / repeated type / bad match combos -> INVALID_REQUEST (42);
 * a type other than user, client-id, ip -> UNSUPPORTED_VERSION (35);
 * ip combined with user or client-id -> INVALID_REQUEST.
 */
export function compileDescribeFilter(
  components: readonly FilterComponent[],
  strict: boolean,
): { readonly ok: true; readonly filter: DescribeFilter } | ApiErrorResult {
  const exact = new Map<string, string | null>();
  const specified = new Set<string>();
  for (const c of components) {
    const match = c.match ?? null;
    if (c.entityType === '') return invalid('Invalid empty entity type.');
    if (exact.has(c.entityType) || specified.has(c.entityType)) {
      return invalid(`Entity type ${c.entityType} cannot appear more than once in the filter.`);
    }
    if (![ENTITY_IP, ENTITY_USER, ENTITY_CLIENT_ID].includes(c.entityType)) {
      return { ok: false, errorCode: ERROR_UNSUPPORTED_VERSION, message: `Unsupported entity type ${c.entityType}` };
    }
    if (c.matchType === MATCH_TYPE_EXACT) {
      if (match === null) return invalid('Request specified MATCH_TYPE_EXACT, but set match string to null.');
      exact.set(c.entityType, match);
    } else if (c.matchType === MATCH_TYPE_DEFAULT) {
      if (match !== null) return invalid('Request specified MATCH_TYPE_DEFAULT, but also specified a match string.');
      exact.set(c.entityType, null);
    } else if (c.matchType === MATCH_TYPE_SPECIFIED) {
      if (match !== null) return invalid('Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.');
      specified.add(c.entityType);
    } else {
      return invalid(`Unknown match type ${c.matchType}`);
    }
  }
  const mentions = (t: string) => exact.has(t) || specified.has(t);
  if (mentions(ENTITY_IP) && (mentions(ENTITY_USER) || mentions(ENTITY_CLIENT_ID))) {
    return invalid(
      'Invalid entity filter component combination. IP filter component should not be used with user or clientId filter component.',
    );
  }
  return { ok: true, filter: { exact, specified, strict } };
}

/**
 * Does `entity` match? No components: everything unless strict (then nothing). Otherwise each
 * component must hold, and with `strict` the entity must have no other entity types.
 */
export function entityMatchesFilter(entity: QuotaEntity, filter: DescribeFilter): boolean {
  const componentCount = filter.exact.size + filter.specified.size;
  if (componentCount === 0) return !filter.strict;
  const names = entityNamesByType(entity);
  for (const [type, name] of filter.exact) {
    if (!names.has(type) || names.get(type) !== name) return false;
  }
  for (const type of filter.specified) if (!names.has(type)) return false;
  return !filter.strict || names.size === componentCount;
}

export interface DescribedQuota {
  readonly entity: QuotaEntity;
  readonly values: QuotaValues;
}

/** DescribeClientQuotas over a table; entries sorted by entityKey for deterministic output. */
export function describeClientQuotas(
  table: QuotaTable,
  components: readonly FilterComponent[],
  strict: boolean,
): { readonly ok: true; readonly entries: readonly DescribedQuota[] } | ApiErrorResult {
  const compiled = compileDescribeFilter(components, strict);
  if (!compiled.ok) return compiled;
  const entries = [...table.keys()]
    .sort()
    .map((k) => ({ entity: parseEntityKey(k), values: table.get(k) as QuotaValues }))
    .filter((e) => entityMatchesFilter(e.entity, compiled.filter));
  return { ok: true, entries };
}

function entityNamesByType(entity: QuotaEntity): Map<string, string | null> {
  const names = new Map<string, string | null>();
  if (hasUser(entity)) names.set(ENTITY_USER, entity.user ?? null);
  if (hasClientId(entity)) names.set(ENTITY_CLIENT_ID, entity.clientId ?? null);
  if (hasIp(entity)) names.set(ENTITY_IP, entity.ip ?? null);
  return names;
}
