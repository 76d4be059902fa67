// The client quotas use case behind /quotas (KIP-546 DescribeClientQuotas / AlterClientQuotas):
// read them with Kafka's filter, replace or remove one entity's quotas. A change made through
// this gateway drops the cached broker quotas the "kafka" RateLimit-Policy is computed from
// (src/services/quotas/broker-policy.ts), so the next mutation sees the new rate.
import type { ClientQuotaAdmin, ClientQuotaEntry, ClientQuotaFilter, QuotaEntity } from '../../kafka/kafka-admin.js';
import type { IpQuotaKey, QuotaKey } from '../../domain/quota-entity.js';
import type { MutationAdmission } from './mutation-admission.js';

export type { ClientQuotaEntry, ClientQuotaFilter, QuotaEntity, QuotaKey, IpQuotaKey };
/** The one quota an IP entity takes (KIP-612; Kafka's QuotaConfigs.ipConfigs): part of this service's vocabulary. */
export { IP_QUOTA_KEY } from '../../domain/quota-entity.js';

export class ClientQuotaService {
  readonly #quotas: ClientQuotaAdmin;
  readonly #admission: MutationAdmission;

  constructor(quotas: ClientQuotaAdmin, admission: MutationAdmission) {
    this.#quotas = quotas;
    this.#admission = admission;
  }

  describe(filter: ClientQuotaFilter): Promise<ClientQuotaEntry[]> {
    return this.#quotas.describeClientQuotas(filter);
  }

  /** Sets `set` and removes `remove` for `entity` (one AlterClientQuotas). */
  async alter(
    entity: QuotaEntity,
    set: Partial<Record<QuotaKey | IpQuotaKey, number>>,
    remove: Array<QuotaKey | IpQuotaKey>,
    validateOnly: boolean,
  ): Promise<void> {
    await this.#quotas.alterClientQuota({ entity, set, remove }, { validateOnly });
    if (!validateOnly) this.#admission.quotasChanged();
  }

  /** Removes the quotas `keys` of `entity`. */
  async remove(entity: QuotaEntity, keys: Array<QuotaKey | IpQuotaKey>): Promise<void> {
    await this.#quotas.alterClientQuota({ entity, set: {}, remove: keys });
    this.#admission.quotasChanged();
  }
}
