// The controller-mutation-quota services of one gateway: the admission every topic mutation
// goes through (src/services/quotas/mutation-admission.ts) and the client quotas behind /quotas.
import { DEFAULT_CLIENT_ID } from '../../kafka/config.js';
import { clientQuotasOf, type ClientQuotaAdmin } from '../../kafka/kafka-admin.js';
import type { KafkaGateway } from '../../kafka/types.js';
import { ClientQuotaService } from './client-quotas.js';
import { DEFAULT_QUOTA_CONFIG, type QuotaConfig } from './config.js';
import { MutationAdmission, type Sleep } from './mutation-admission.js';

/** Kafka's principal name for connections without SASL (KafkaPrincipal.ANONYMOUS). */
export const KAFKA_ANONYMOUS_USER = 'ANONYMOUS';

export interface QuotaServiceOptions {
  /** Defaults: everything off (DEFAULT_QUOTA_CONFIG). */
  config?: Partial<QuotaConfig>;
  /** Behind /quotas and the "kafka" RateLimit-Policy; default: from the Kafka gateway when it can send low-level requests. */
  quotas?: ClientQuotaAdmin;
  /** KAFKA_CLIENT_ID (default kafka-admin-gateway). */
  baseClientId?: string;
  /** The principal Kafka sees for the gateway: the SASL username, or ANONYMOUS (default). */
  kafkaUser?: string;
  /** Tests: the clock and sleep of gateway-side buckets and retryOnQuotaViolation. */
  now?: () => number;
  sleep?: Sleep;
}

export interface QuotaServices {
  mutations: MutationAdmission;
  /** Undefined for a Kafka gateway without low-level requests (test fakes): /quotas is then not served. */
  quotas: ClientQuotaService | undefined;
}

export function createQuotaServices(kafka: KafkaGateway, opts: QuotaServiceOptions = {}): QuotaServices {
  const quotas = opts.quotas ?? clientQuotasOf(kafka);
  const mutations = new MutationAdmission({
    config: { ...DEFAULT_QUOTA_CONFIG, ...opts.config },
    kafka,
    quotas,
    baseClientId: opts.baseClientId ?? DEFAULT_CLIENT_ID,
    kafkaUser: opts.kafkaUser ?? KAFKA_ANONYMOUS_USER,
    ...(opts.now && { now: opts.now }),
    ...(opts.sleep && { sleep: opts.sleep }),
  });
  return { mutations, quotas: quotas && new ClientQuotaService(quotas, mutations) };
}
