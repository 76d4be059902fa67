// AlterClientQuotas v1 (KIP-546), sent to any broker: KRaft brokers forward it to the
// controller (ZooKeeper-mode brokers write it themselves), which is what Kafka's AdminClient
// does too. One entity per request; its error is thrown.
/*
  AlterClientQuotas Request (Version: 1) => [entries] validate_only TAG_BUFFER
    entries => [entity] [ops] TAG_BUFFER
      entity => entity_type entity_name TAG_BUFFER
        entity_type => COMPACT_STRING
        entity_name => COMPACT_NULLABLE_STRING
      ops => key value remove TAG_BUFFER
        key => COMPACT_STRING
        value => FLOAT64
        remove => BOOLEAN
    validate_only => BOOLEAN

  AlterClientQuotas Response (Version: 1) => throttle_time_ms [entries] TAG_BUFFER
    throttle_time_ms => INT32
    entries => error_code error_message [entity] TAG_BUFFER
      error_code => INT16
      error_message => COMPACT_NULLABLE_STRING
      entity => entity_type entity_name TAG_BUFFER
        entity_type => COMPACT_STRING
        entity_name => COMPACT_NULLABLE_STRING
*/
import { alterClientQuotasV1 } from '@platformatic/kafka';
import { KafkaRequestError } from '../errors.js';
import { kafkaErrorInfo, kafkaErrorName, NONE } from '../errors-map.js';
import type { RequestSender } from '../request.js';
import { ENTITY_CLIENT_ID, ENTITY_IP, ENTITY_USER, type ClientQuotaAlteration, type QuotaEntity } from './client-quotas.js';
import { at, GATEWAY_APIS } from './versions.js';

type AlterEntry = Parameters<typeof alterClientQuotasV1.createRequest>[0][number];
type AlterOp = AlterEntry['ops'][number];

function entityComponents(entity: QuotaEntity): AlterEntry['entities'] {
  const out: AlterEntry['entities'] = [];
  if (entity.user !== undefined) out.push({ entityType: ENTITY_USER, entityName: entity.user });
  if (entity.clientId !== undefined) out.push({ entityType: ENTITY_CLIENT_ID, entityName: entity.clientId });
  if (entity.ip !== undefined) out.push({ entityType: ENTITY_IP, entityName: entity.ip });
  return out;
}

/** Throws KafkaRequestError with the broker's per-entity error. */
export async function alterClientQuota(
  kafka: RequestSender,
  alteration: ClientQuotaAlteration,
  opts: { validateOnly?: boolean } = {},
): Promise<void> {
  const ops: AlterOp[] = [
    ...Object.entries(alteration.set).map(([key, value]): AlterOp => ({ key: key as AlterOp['key'], value: value, remove: false })),
    ...alteration.remove.map((key): AlterOp => ({ key: key, remove: true })),
  ];
  const res = await kafka.sendRequest(
    'AlterClientQuotas',
    'any',
    async (conn) =>
      (await at(conn, GATEWAY_APIS.AlterClientQuotas, alterClientQuotasV1.api)).async(
        conn,
        [{ entities: entityComponents(alteration.entity), ops }],
        opts.validateOnly ?? false,
      ),
    (r) =>
      r.entries
        .map((e) => e.errorCode)
        .filter((c) => c !== 0)
        .map(kafkaErrorName)[0] ?? NONE,
  );
  const failed = res.entries.find((e) => e.errorCode !== 0);
  if (failed) throw new KafkaRequestError('kafka', kafkaErrorInfo(failed.errorCode, failed.errorMessage));
  if (res.entries.length === 0)
    throw new KafkaRequestError('kafka', kafkaErrorInfo(-1, 'AlterClientQuotas answered without a result for the entity'));
}
