// What DescribeClientQuotas v1 and AlterClientQuotas v1 (KIP-546) share: the entities and
// values of client quotas, as the gateway sees them.
//
// Quota keys are Kafka's own (producer_byte_rate, consumer_byte_rate, request_percentage,
// controller_mutation_rate; connection_creation_rate for ip entities), passed as plain strings (the client library's ClientQuotaKeys
// enum only gained controller_mutation_rate in 2.x). A null entity name is the default entity.
import {
  ENTITY_CLIENT_ID,
  ENTITY_IP,
  ENTITY_USER,
  type IpQuotaKey,
  type QuotaEntity,
  type QuotaKey,
  type QuotaValues,
} from '../../domain/quota-entity.js';

export type { IpQuotaKey, QuotaEntity, QuotaKey, QuotaValues };
export { ENTITY_CLIENT_ID, ENTITY_IP, ENTITY_USER };

export interface ClientQuotaEntry {
  entity: QuotaEntity;
  values: QuotaValues;
}

/**
 * DescribeClientQuotas filter. Per entity type: a string matches that name exactly, null
 * matches the default entity, undefined does not filter on the type. `strict` drops
 * entities that have entity types the filter does not name (e.g. {user: "alice"} strict
 * is alice's user entity alone, without her user+client-id entities).
 */
export interface ClientQuotaFilter {
  user?: string | null;
  clientId?: string | null;
  /** IP entities stand alone: Kafka refuses an ip filter combined with user / client-id. */
  ip?: string | null;
  strict?: boolean;
}

/** One entity's change: keys in `set` get that value, keys in `remove` are deleted (removing an unset key is fine). */
export interface ClientQuotaAlteration {
  entity: QuotaEntity;
  set: Partial<Record<QuotaKey | IpQuotaKey, number>>;
  remove: Array<QuotaKey | IpQuotaKey>;
}
