// Gateway (HTTP side) configuration from the environment. Kafka connection settings
// live in src/kafka/config.ts; this file only decides *whether* there is an external
// cluster (KAFKA_BOOTSTRAP_SERVERS set) or the embedded demo simulator.
import { parseQuotaConfig, type QuotaConfig } from './services/quotas/config.js';
import { envInt, type Env } from './env.js';
import { parseKafkaConfig, type KafkaConfig } from './kafka/config.js';

export interface GatewayConfig {
  port: number;
  /** Interface to bind; all interfaces by default, as a container expects. */
  host: string;
  /** Upper bound for draining in-flight requests on SIGTERM (below k8s's 30 s grace period). */
  shutdownTimeoutMs: number;
  /** Largest JSON request body accepted (body-parser syntax, e.g. "1mb"). */
  bodyLimit: string;
  kafka:
    | { mode: 'external'; config: KafkaConfig }
    /** No KAFKA_BOOTSTRAP_SERVERS: start the in-process simulator with demo data. */
    | { mode: 'embedded' };
  /** Controller mutation quotas: per-caller client ids, gateway-side admission (src/services/quotas/config.ts). */
  quota: QuotaConfig;
  /** How long a topic's description is answered again to other callers (ms; 0: every GET reads Kafka). See TopicService. */
  topicReadMaxAgeMs: number;
}

/** Validates everything and throws one error listing every problem, so startup fails readably. */
export function loadGatewayConfig(env: Env = process.env): GatewayConfig {
  const problems: string[] = [];
  const port = envInt(env, 'PORT', 8080, 0, 65535, problems);
  const host = env.HOST?.trim() || '0.0.0.0';
  const shutdownTimeoutMs = envInt(env, 'SHUTDOWN_TIMEOUT_MS', 25_000, 0, 600_000, problems);
  const topicReadMaxAgeMs = envInt(env, 'TOPIC_READ_MAX_AGE_MS', 1000, 0, 60_000, problems);
  const bodyLimit = env.HTTP_BODY_LIMIT?.trim() || '1mb';
  if (!/^\d+(b|kb|mb)?$/i.test(bodyLimit)) problems.push(`HTTP_BODY_LIMIT must look like 512kb or 1mb, got "${bodyLimit}"`);

  let kafka: GatewayConfig['kafka'] = { mode: 'embedded' };
  if (env.KAFKA_BOOTSTRAP_SERVERS?.trim()) {
    try {
      kafka = { mode: 'external', config: parseKafkaConfig(env) };
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  const quota = parseQuotaConfig(env, problems);
  if (problems.length > 0) throw new Error(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return { port, host, shutdownTimeoutMs, bodyLimit, kafka, quota, topicReadMaxAgeMs };
}
