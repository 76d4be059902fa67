// Client quotas: DescribeClientQuotas v1 to read, AlterClientQuotas v1 to write (KIP-546).
// Both go to any broker: DescribeClientQuotas is answered from every broker's metadata,
// and KRaft brokers forward AlterClientQuotas to the controller (ZooKeeper-mode brokers
// write it themselves), which is what Kafka's AdminClient does too.
//
// Quota keys are Kafka's own (producer_byte_rate, consumer_byte_rate, request_percentage,
// controller_mutation_rate), passed as plain strings (the client library's ClientQuotaKeys
// enum only gained controller_mutation_rate in 2.x). A null entity name is the default entity.
// describeClientQuotasV1 is the v1 module: in @platformatic/kafka 1.x the file named
// describe-client-quotas-v0 sent v1; in 2.x it sends v0, so the v1 module is named explicitly.
import { alterClientQuotasV1, ClientQuotaMatchTypes, describeClientQuotasV1, type Connection } from '@platformatic/kafka';
import { ENTITY_CLIENT_ID, ENTITY_USER, isQuotaKey, type QuotaEntity, type QuotaKey, type QuotaValues } from '../domain/quota-entity.js';
import { KafkaRequestError } from './errors.js';
import { kafkaErrorInfo, kafkaErrorName, NONE } from './errors-map.js';
import type { RequestTarget } from './admin.js';

export type { QuotaEntity, QuotaKey, QuotaValues };

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
  strict?: boolean;
}

/** One entity's change: keys in `set` get that value, keys in `remove` are deleted (removing an unset key is fine). */
export interface ClientQuotaAlteration {
  entity: QuotaEntity;
  set: Partial<Record<QuotaKey, number>>;
  remove: QuotaKey[];
}

export interface ClientQuotaAdmin {
  describeClientQuotas(filter: ClientQuotaFilter): Promise<ClientQuotaEntry[]>;
  /** Throws KafkaRequestError with the broker's per-entity error. */
  alterClientQuota(alteration: ClientQuotaAlteration, opts?: { validateOnly?: boolean }): Promise<void>;
}

/** The part of PlatformaticKafkaGateway this module needs (its pool, retries and metrics). */
export interface RequestSender {
  sendRequest<T>(api: string, target: RequestTarget, call: (conn: Connection) => Promise<T>, inBand?: (res: T) => string): Promise<T>;
}

type DescribeComponent = Parameters<typeof describeClientQuotasV1.createRequest>[0][number];
type AlterEntry = Parameters<typeof alterClientQuotasV1.createRequest>[0][number];
type AlterOp = AlterEntry['ops'][number];
type EntityType = AlterEntry['entities'][number]['entityType'];

function filterComponents(filter: ClientQuotaFilter): DescribeComponent[] {
  const out: DescribeComponent[] = [];
  const add = (entityType: EntityType, name: string | null | undefined): void => {
    if (name === undefined) return;
    out.push(name === null ? { entityType, matchType: ClientQuotaMatchTypes.DEFAULT } : { entityType, matchType: ClientQuotaMatchTypes.EXACT, match: name });
  };
  add(ENTITY_USER as EntityType, filter.user);
  add(ENTITY_CLIENT_ID as EntityType, filter.clientId);
  return out;
}

function entityOf(components: { entityType: string; entityName?: string | null }[]): QuotaEntity | undefined {
  const entity: { user?: string | null; clientId?: string | null } = {};
  for (const c of components) {
    if (c.entityType === ENTITY_USER) entity.user = c.entityName ?? null;
    else if (c.entityType === ENTITY_CLIENT_ID) entity.clientId = c.entityName ?? null;
    else return undefined; // ip entities: not a client quota this gateway manages
  }
  return entity;
}

function entityComponents(entity: QuotaEntity): AlterEntry['entities'] {
  const out: AlterEntry['entities'] = [];
  if (entity.user !== undefined) out.push({ entityType: ENTITY_USER as EntityType, entityName: entity.user });
  if (entity.clientId !== undefined) out.push({ entityType: ENTITY_CLIENT_ID as EntityType, entityName: entity.clientId });
  return out;
}

/**
 * Sort key: entities with a user first, by user (default first), each user's own entity
 * before its user+client-id ones; then client-id-only entities (default first).
 */
function sortKey(e: QuotaEntity): string {
  const part = (v: string | null | undefined): string => (v === undefined ? '0' : v === null ? '1' : '2' + v);
  return `${e.user === undefined ? 1 : 0}\u0000${part(e.user)}\u0000${part(e.clientId)}`;
}

export class KafkaClientQuotas implements ClientQuotaAdmin {
  constructor(private readonly kafka: RequestSender) {}

  async describeClientQuotas(filter: ClientQuotaFilter): Promise<ClientQuotaEntry[]> {
    const res = await this.kafka.sendRequest(
      'DescribeClientQuotas',
      'any',
      (conn) => describeClientQuotasV1.api.async(conn, filterComponents(filter), filter.strict ?? false),
      (r) => (r.errorCode === 0 ? NONE : kafkaErrorName(r.errorCode)),
    );
    if (res.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(res.errorCode, res.errorMessage));
    const entries: ClientQuotaEntry[] = [];
    for (const e of res.entries ?? []) {
      const entity = entityOf(e.entity);
      if (!entity) continue;
      const values: Partial<Record<QuotaKey, number>> = {};
      for (const v of e.values) if (isQuotaKey(v.key)) values[v.key] = v.value;
      entries.push({ entity, values });
    }
    return entries.sort((a, b) => (sortKey(a.entity) < sortKey(b.entity) ? -1 : sortKey(a.entity) > sortKey(b.entity) ? 1 : 0));
  }

  async alterClientQuota(alteration: ClientQuotaAlteration, opts: { validateOnly?: boolean } = {}): Promise<void> {
    const ops: AlterOp[] = [
      ...Object.entries(alteration.set).map(([key, value]): AlterOp => ({ key: key as AlterOp['key'], value: value as number, remove: false })),
      ...alteration.remove.map((key): AlterOp => ({ key: key as AlterOp['key'], remove: true })),
    ];
    const res = await this.kafka.sendRequest(
      'AlterClientQuotas',
      'any',
      (conn) => alterClientQuotasV1.api.async(conn, [{ entities: entityComponents(alteration.entity), ops }], opts.validateOnly ?? false),
      (r) => r.entries.map((e) => e.errorCode).filter((c) => c !== 0).map(kafkaErrorName)[0] ?? NONE,
    );
    const failed = res.entries.find((e) => e.errorCode !== 0);
    if (failed) throw new KafkaRequestError('kafka', kafkaErrorInfo(failed.errorCode, failed.errorMessage));
    if (res.entries.length === 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(-1, 'AlterClientQuotas answered without a result for the entity'));
  }
}

/** A ClientQuotaAdmin for a Kafka gateway that can send low-level requests (the real one), else undefined. */
export function clientQuotasOf(kafka: object): ClientQuotaAdmin | undefined {
  return typeof (kafka as Partial<RequestSender>).sendRequest === 'function' ? new KafkaClientQuotas(kafka as RequestSender) : undefined;
}
