// Configuration of the controller-mutation-quota features (issue 4), from the environment.
// Pure: validates everything and reports problems to the caller's list, so startup fails
// with one readable message (src/config.ts collects them).
import { clientIdPatternError } from '../../domain/caller-client-id.js';
import { envInt, envString, type Env } from '../../env.js';
import { DEFAULT_QUOTA_WINDOW, type QuotaWindowConfig } from '../../domain/token-bucket.js';
import { DEFAULT_CALLER_CLIENTS, type CallerClientsOptions } from '../../kafka/caller-clients.js';

export interface GatewayAdmissionConfig {
  /** Partition mutations per second per REST caller (GATEWAY_MUTATION_RATE). */
  rate: number;
  /** Burst = windowNum x windowSizeSeconds x rate, exactly as Kafka's controller.quota.window.*. */
  window: QuotaWindowConfig;
}

export interface QuotaConfig {
  /** KAFKA_CLIENT_ID_PATTERN, e.g. `kafka-admin-gateway/{principal}`; null = every caller uses KAFKA_CLIENT_ID. */
  clientIdPattern: string | null;
  callerClients: CallerClientsOptions;
  /** Gateway-side admission; null = off (the default). */
  admission: GatewayAdmissionConfig | null;
  /**
   * The broker's controller.quota.window.num x size.seconds (KAFKA_CONTROLLER_QUOTA_WINDOW_SECONDS,
   * default 11 = Kafka's defaults): turns a configured controller_mutation_rate into the
   * RateLimit-Policy quota (burst) and window. The gateway cannot read it from Kafka.
   */
  brokerWindowSeconds: number;
  /** How long a DescribeClientQuotas answer is reused for RateLimit-Policy (KAFKA_QUOTA_CACHE_MS); 0 = no broker policy header. */
  brokerQuotaCacheMs: number;
}

export const DEFAULT_QUOTA_CONFIG: QuotaConfig = Object.freeze({
  clientIdPattern: null,
  callerClients: DEFAULT_CALLER_CLIENTS,
  admission: null,
  brokerWindowSeconds: DEFAULT_QUOTA_WINDOW.windowNum * DEFAULT_QUOTA_WINDOW.windowSizeSeconds,
  brokerQuotaCacheMs: 30_000,
});

export function parseQuotaConfig(env: Env, problems: string[]): QuotaConfig {
  const pattern = envString(env, 'KAFKA_CLIENT_ID_PATTERN') ?? null;
  if (pattern !== null) {
    const error = clientIdPatternError(pattern);
    if (error) problems.push(`KAFKA_CLIENT_ID_PATTERN ${error}`);
  }
  const callerClients: CallerClientsOptions = {
    maxClients: envInt(env, 'KAFKA_CALLER_CLIENTS_MAX', DEFAULT_CALLER_CLIENTS.maxClients, 1, 10_000, problems),
    idleMs: envInt(env, 'KAFKA_CALLER_CLIENT_IDLE_MS', DEFAULT_CALLER_CLIENTS.idleMs, 1000, 86_400_000, problems),
  };

  let admission: GatewayAdmissionConfig | null = null;
  const rateRaw = envString(env, 'GATEWAY_MUTATION_RATE');
  const windowNum = envInt(env, 'GATEWAY_MUTATION_WINDOW_NUM', DEFAULT_QUOTA_WINDOW.windowNum, 1, 3600, problems);
  const windowSizeSeconds = envInt(env, 'GATEWAY_MUTATION_WINDOW_SIZE_SECONDS', DEFAULT_QUOTA_WINDOW.windowSizeSeconds, 1, 3600, problems);
  if (rateRaw !== undefined) {
    const rate = Number(rateRaw);
    if (!/^\d+(\.\d+)?$/.test(rateRaw) || !(rate > 0) || rate > 1e9)
      problems.push(`GATEWAY_MUTATION_RATE must be a number > 0 (partition mutations per second), got "${rateRaw}"`);
    else admission = { rate, window: { windowNum, windowSizeSeconds } };
  }

  return {
    clientIdPattern: pattern,
    callerClients,
    admission,
    brokerWindowSeconds: envInt(
      env,
      'KAFKA_CONTROLLER_QUOTA_WINDOW_SECONDS',
      DEFAULT_QUOTA_CONFIG.brokerWindowSeconds,
      1,
      86_400,
      problems,
    ),
    brokerQuotaCacheMs: envInt(env, 'KAFKA_QUOTA_CACHE_MS', DEFAULT_QUOTA_CONFIG.brokerQuotaCacheMs, 0, 3_600_000, problems),
  };
}
