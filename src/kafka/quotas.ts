// Client quotas (KIP-546) for src/http: the types, and the ClientQuotaAdmin of a Kafka
// gateway. The requests are src/kafka/apis/describe-client-quotas-v1.ts and
// alter-client-quotas-v1.ts; KafkaAdmin (src/kafka/kafka-admin.ts) implements ClientQuotaAdmin.
import type { ClientQuotaAdmin } from './kafka-admin.js';

export type { ClientQuotaAlteration, ClientQuotaEntry, ClientQuotaFilter, QuotaEntity, QuotaKey, QuotaValues } from './apis/client-quotas.js';
export type { ClientQuotaAdmin };

/** The gateway itself when it manages client quotas (the real one does; test doubles may not), else undefined. */
export function clientQuotasOf(kafka: object): ClientQuotaAdmin | undefined {
  const q = kafka as Partial<ClientQuotaAdmin>;
  return typeof q.describeClientQuotas === 'function' && typeof q.alterClientQuota === 'function' ? (kafka as ClientQuotaAdmin) : undefined;
}
