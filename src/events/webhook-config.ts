// Settings of webhook delivery, from the environment (validated like src/reconcile/config.ts:
// one Error listing every problem).
import { envInt, type Env } from '../env.js';

export interface WebhookConfig {
  /** WEBHOOK_MAX_ATTEMPTS: attempts per change before it is given up (recorded `failed`). */
  maxAttempts: number;
  /** WEBHOOK_MAX_AGE_SECONDS: a change still not delivered this long after its first attempt is given up. */
  maxAgeMs: number;
  /** WEBHOOK_ATTEMPT_TIMEOUT_MS: one attempt (connect, send, the receiver's status line) ends by then. */
  attemptTimeoutMs: number;
  /** WEBHOOK_BACKOFF_BASE_MS / WEBHOOK_BACKOFF_MAX_MS: the wait after failed attempt n is base x 2^(n-1), capped, with jitter. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /**
   * WEBHOOK_LEASE_MS: lease of the delivery claim (one instance delivers at a time). An instance
   * that dies delivering delays deliveries up to this long. At least the attempt timeout + 5 s.
   */
  leaseMs: number;
  /** WEBHOOK_POLL_MS: how often an idle instance looks for changes to deliver (a new change wakes it at once). */
  pollMs: number;
  /** WEBHOOK_MAX_COUNT: webhooks that may exist at once. */
  maxWebhooks: number;
}

export function loadWebhookConfig(env: Env = process.env): WebhookConfig {
  const problems: string[] = [];
  const maxAttempts = envInt(env, 'WEBHOOK_MAX_ATTEMPTS', 10, 1, 100, problems);
  const maxAgeMs = envInt(env, 'WEBHOOK_MAX_AGE_SECONDS', 3600, 1, 7 * 86_400, problems) * 1000;
  const attemptTimeoutMs = envInt(env, 'WEBHOOK_ATTEMPT_TIMEOUT_MS', 10_000, 100, 120_000, problems);
  const backoffBaseMs = envInt(env, 'WEBHOOK_BACKOFF_BASE_MS', 1000, 10, 3_600_000, problems);
  const backoffMaxMs = envInt(env, 'WEBHOOK_BACKOFF_MAX_MS', 300_000, 10, 3_600_000, problems);
  const leaseMs = envInt(env, 'WEBHOOK_LEASE_MS', Math.max(30_000, attemptTimeoutMs + 5000), 1000, 15 * 60_000, problems);
  const pollMs = envInt(env, 'WEBHOOK_POLL_MS', 1000, 10, 60_000, problems);
  const maxWebhooks = envInt(env, 'WEBHOOK_MAX_COUNT', 100, 1, 10_000, problems);
  if (backoffMaxMs < backoffBaseMs)
    problems.push(`WEBHOOK_BACKOFF_MAX_MS (${backoffMaxMs}) must be at least WEBHOOK_BACKOFF_BASE_MS (${backoffBaseMs})`);
  if (leaseMs < attemptTimeoutMs + 5000)
    problems.push(
      `WEBHOOK_LEASE_MS (${leaseMs}) must be at least WEBHOOK_ATTEMPT_TIMEOUT_MS (${attemptTimeoutMs}) + 5000: an attempt started inside the lease must end inside it`,
    );
  if (problems.length) throw new Error(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return { maxAttempts, maxAgeMs, attemptTimeoutMs, backoffBaseMs, backoffMaxMs, leaseMs, pollMs, maxWebhooks };
}

/**
 * The wait after the `attempt`-th failed attempt (1-based): exponential, capped, with jitter in
 * [half, whole] of it (spreads retries of many receivers; never zero).
 */
export function backoffMs(
  config: Pick<WebhookConfig, 'backoffBaseMs' | 'backoffMaxMs'>,
  attempt: number,
  random: () => number = Math.random,
): number {
  const full = Math.min(config.backoffMaxMs, config.backoffBaseMs * 2 ** Math.min(30, Math.max(0, attempt - 1)));
  return Math.round(full / 2 + (random() * full) / 2);
}
