// Wires the controller-mutation-quota features into an app (src/http/app.ts): the guard
// every topic mutation goes through, its metrics, and the client quota admin behind /quotas.
import type { Registry } from 'prom-client';
import { DEFAULT_CLIENT_ID } from '../../kafka/config.js';
import { clientQuotasOf, type ClientQuotaAdmin } from '../../kafka/quotas.js';
import type { KafkaGateway } from '../../kafka/types.js';
import { DEFAULT_QUOTA_CONFIG, type QuotaConfig } from './config.js';
import { createQuotaMetrics } from './metrics.js';
import { MutationGuard, type Sleep } from './mutation-guard.js';

/** Kafka's principal name for connections without SASL (KafkaPrincipal.ANONYMOUS). */
export const KAFKA_ANONYMOUS_USER = 'ANONYMOUS';

export interface QuotaAppOptions {
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

export interface QuotaFeature {
  mutations: MutationGuard;
  /** Undefined for a Kafka gateway without low-level requests (test fakes): /quotas is then not served. */
  quotas: ClientQuotaAdmin | undefined;
}

export function createQuotaFeature(kafka: KafkaGateway, registry: Registry, opts: QuotaAppOptions = {}): QuotaFeature {
  const quotas = opts.quotas ?? clientQuotasOf(kafka);
  const mutations = new MutationGuard({
    config: { ...DEFAULT_QUOTA_CONFIG, ...opts.config },
    metrics: createQuotaMetrics(registry),
    quotas,
    baseClientId: opts.baseClientId ?? DEFAULT_CLIENT_ID,
    kafkaUser: opts.kafkaUser ?? KAFKA_ANONYMOUS_USER,
    ...(opts.now && { now: opts.now }),
    ...(opts.sleep && { sleep: opts.sleep }),
  });
  return { mutations, quotas };
}
