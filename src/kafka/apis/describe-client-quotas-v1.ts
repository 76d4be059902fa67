// DescribeClientQuotas v1 (KIP-546), sent to any broker: it is answered from every broker's
// metadata. describeClientQuotasV1 is the v1 module: in @platformatic/kafka 1.x the file named
// describe-client-quotas-v0 sent v1; in 2.x it sends v0, so the v1 module is named explicitly.
/*
  DescribeClientQuotas Request (Version: 1) => [components] strict TAG_BUFFER
    components => entity_type match_type match TAG_BUFFER
      entity_type => COMPACT_STRING
      match_type => INT8
      match => COMPACT_NULLABLE_STRING
    strict => BOOLEAN

  DescribeClientQuotas Response (Version: 1) => throttle_time_ms error_code error_message [entries] TAG_BUFFER
    throttle_time_ms => INT32
    error_code => INT16
    error_message => COMPACT_NULLABLE_STRING
    entries => [entity] [values] TAG_BUFFER
      entity => entity_type entity_name TAG_BUFFER
        entity_type => COMPACT_STRING
        entity_name => COMPACT_NULLABLE_STRING
      values => key value TAG_BUFFER
        key => COMPACT_STRING
        value => FLOAT64
*/
import { ClientQuotaMatchTypes, describeClientQuotasV1 } from '@platformatic/kafka';
import { IP_QUOTA_KEY, isQuotaKey } from '../../domain/quota-entity.js';
import { KafkaRequestError } from '../errors.js';
import { kafkaErrorInfo, kafkaErrorName, NONE } from '../errors-map.js';
import type { RequestSender } from '../request.js';
import {
  ENTITY_CLIENT_ID,
  ENTITY_IP,
  ENTITY_USER,
  type ClientQuotaEntry,
  type ClientQuotaFilter,
  type IpQuotaKey,
  type QuotaEntity,
  type QuotaKey,
} from './client-quotas.js';
import { at, GATEWAY_APIS } from './versions.js';

type DescribeComponent = Parameters<typeof describeClientQuotasV1.createRequest>[0][number];
type EntityType = DescribeComponent['entityType'];

function filterComponents(filter: ClientQuotaFilter): DescribeComponent[] {
  const out: DescribeComponent[] = [];
  const add = (entityType: EntityType, name: string | null | undefined): void => {
    if (name === undefined) return;
    out.push(
      name === null
        ? { entityType, matchType: ClientQuotaMatchTypes.DEFAULT }
        : { entityType, matchType: ClientQuotaMatchTypes.EXACT, match: name },
    );
  };
  add(ENTITY_USER, filter.user);
  add(ENTITY_CLIENT_ID, filter.clientId);
  add(ENTITY_IP, filter.ip);
  return out;
}

function entityOf(components: { entityType: string; entityName?: string | null }[]): QuotaEntity | undefined {
  const entity: { user?: string | null; clientId?: string | null; ip?: string | null } = {};
  for (const c of components) {
    if (c.entityType === ENTITY_USER) entity.user = c.entityName ?? null;
    else if (c.entityType === ENTITY_CLIENT_ID) entity.clientId = c.entityName ?? null;
    else if (c.entityType === ENTITY_IP) entity.ip = c.entityName ?? null;
    else return undefined; // an entity type this gateway does not know
  }
  return entity;
}

/**
 * Sort key: entities with a user first, by user (default first), each user's own entity
 * before its user+client-id ones; then client-id-only entities (default first); then ip
 * entities (default first).
 */
function sortKey(e: QuotaEntity): string {
  const part = (v: string | null | undefined): string => (v === undefined ? '0' : v === null ? '1' : '2' + v);
  const group = e.user !== undefined ? 0 : e.clientId !== undefined ? 1 : 2;
  return `${group}\u0000${part(e.user)}\u0000${part(e.clientId)}\u0000${part(e.ip)}`;
}

/** Entities matching `filter` with their values, sorted (see sortKey). */
export async function describeClientQuotas(kafka: RequestSender, filter: ClientQuotaFilter): Promise<ClientQuotaEntry[]> {
  const res = await kafka.sendRequest(
    'DescribeClientQuotas',
    'any',
    async (conn) =>
      (await at(conn, GATEWAY_APIS.DescribeClientQuotas, describeClientQuotasV1.api)).async(
        conn,
        filterComponents(filter),
        filter.strict ?? false,
      ),
    (r) => (r.errorCode === 0 ? NONE : kafkaErrorName(r.errorCode)),
  );
  if (res.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(res.errorCode, res.errorMessage));
  const entries: ClientQuotaEntry[] = [];
  for (const e of res.entries ?? []) {
    const entity = entityOf(e.entity);
    if (!entity) continue;
    const values: Partial<Record<QuotaKey | IpQuotaKey, number>> = {};
    for (const v of e.values) if (isQuotaKey(v.key) || v.key === IP_QUOTA_KEY) values[v.key] = v.value;
    entries.push({ entity, values });
  }
  return entries.sort((a, b) => (sortKey(a.entity) < sortKey(b.entity) ? -1 : sortKey(a.entity) > sortKey(b.entity) ? 1 : 0));
}
