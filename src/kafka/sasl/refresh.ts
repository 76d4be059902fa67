// When to refresh a token (pure). After Kafka's ExpiringCredentialRefreshingLogin.refreshMs(),
// with one deliberate difference: the jitter is taken *below* the window factor, not above it.
//
// Kafka's login refreshes at [factor, factor + jitter) of the lifetime; a broker that asked for
// re-authentication (KIP-368) gets it from the client at ~0.8 of the session lifetime
// (@platformatic/kafka's Connection: sessionLifetimeMs * 0.8), and a session starts with a
// fresh token's whole lifetime, so both land near 0.8. Refreshing at [factor - jitter, factor)
// has the new token in hand when the re-authentication comes, instead of re-authenticating
// once more with the old token for the rest of its life (a short session, then a second
// re-authentication soon after, which a broker refuses within one second of the last one:
// KafkaChannel.MIN_REAUTH_INTERVAL_ONE_SECOND_NANOS).
//
// Kafka's other rules are kept: never earlier than min.period after now, never later than
// buffer before expiry, and both ignored when the token lives shorter than their sum.
import type { TokenRefreshConfig } from './config.js';

export interface TokenLifetime {
  /** When the token stops being valid (ms since epoch). */
  expiresAtMs: number;
  /** When it was issued (JWT iat, SigV4 X-Amz-Date); the fetch time when unknown. */
  issuedAtMs: number;
}

export type RefreshWindow = Pick<TokenRefreshConfig, 'windowFactor' | 'windowJitter' | 'minPeriodSeconds' | 'bufferSeconds'>;

/** The time to fetch the next token, given the token just fetched at `nowMs`. */
export function refreshAtMs(token: TokenLifetime, nowMs: number, cfg: RefreshWindow, random: () => number = Math.random): number {
  const { expiresAtMs } = token;
  if (nowMs >= expiresAtMs) return nowMs;
  const startMs = Math.min(token.issuedAtMs, nowMs);
  const r = Math.min(Math.max(random(), 0), 1);
  const pct = Math.max(0.01, cfg.windowFactor - cfg.windowJitter * r);
  const minPeriodMs = cfg.minPeriodSeconds * 1000;
  const bufferMs = cfg.bufferSeconds * 1000;
  // Lifetime left shorter than the two buffers: ignore them (as Kafka does).
  if (nowMs + minPeriodMs + bufferMs > expiresAtMs) return nowMs + Math.floor((expiresAtMs - nowMs) * pct);
  const proposed = startMs + Math.floor((expiresAtMs - startMs) * pct);
  if (proposed > expiresAtMs - bufferMs) return expiresAtMs - bufferMs;
  if (proposed < nowMs + minPeriodMs) return nowMs + minPeriodMs;
  return proposed;
}

/**
 * Whether a token is due for replacement when a connection asks for one: past `factor` of its
 * lifetime (less a small margin for timer skew). A connection re-authenticating at ~0.8 of its
 * session then gets a new token, not the old one again.
 */
export function isDue(token: TokenLifetime, nowMs: number, cfg: Pick<TokenRefreshConfig, 'windowFactor'>): boolean {
  const lifetime = token.expiresAtMs - token.issuedAtMs;
  const margin = Math.min(1000, lifetime * 0.05);
  return nowMs >= token.issuedAtMs + lifetime * cfg.windowFactor - margin;
}

/** Wait before retry `n` (1-based) after a failed fetch: doubling from base, capped, equal jitter. */
export function retryWaitMs(
  cfg: Pick<TokenRefreshConfig, 'retryBackoffMs' | 'retryBackoffMaxMs'>,
  n: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(cfg.retryBackoffMaxMs, cfg.retryBackoffMs * 2 ** Math.max(0, n - 1));
  return ceiling / 2 + (ceiling / 2) * Math.min(Math.max(random(), 0), 1);
}
