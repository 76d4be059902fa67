// A connection's SASL session over time: its expiry and re-authentication (KIP-368), as Kafka's
// broker keeps them (SaslServerAuthenticator.ReauthInfo, KafkaChannel, SocketServer).
//  - session_lifetime_ms at the end of an authentication
//    (ReauthInfo.calcCompletionTimesAndReturnSessionLifetimeMs): with a credential lifetime
//    (an OAUTHBEARER token's exp) and/or connections.max.reauth.ms > 0, the smaller of
//    exp - now and connections.max.reauth.ms (never negative); with neither, 0 and no expiry.
//  - A SaslHandshake on an authenticated connection begins a re-authentication
//    (KafkaChannel.maybeBeginServerReauthentication) when the session has an expiry and the last
//    one began at least a second ago (MIN_REAUTH_INTERVAL_ONE_SECOND_NANOS); otherwise it is an
//    ordinary request, which KafkaApis answers ILLEGAL_SASL_STATE.
//  - While it re-authenticates, any request but SaslAuthenticate ends the connection
//    (SaslServerAuthenticator.handleSaslToken: "Unexpected Kafka request of type ... during SASL
//    authentication"); the connection is simply unauthenticated meanwhile, which the server
//    already treats so.
//  - The mechanism must not change ("SASL mechanism '...' requested by client is not supported for
//    re-authentication of mechanism '...'", REAUTH_BAD_MECHANISM: the connection fails) nor the
//    principal ("Cannot change principals during re-authentication from User.a: User.b", 58).
//  - Any other request once the session has expired closes the connection unanswered
//    (SocketServer Processor.processCompletedReceives: channel.serverAuthenticationSessionExpired
//    -> close, counted in expired-connections-killed-count).
import type { ConnectionState, RequestContext } from '../handlers/types.js';
import type { SaslAuthenticatedEvent } from './settings.js';

export type { SaslAuthenticatedEvent, SaslServerSettings } from './settings.js';

interface SessionState {
  expiresAtMs: number | null;
  reauthenticating: boolean;
  lastReauthStartMs: number | null;
  principal: string | null;
  mechanism: string | null;
}

/** Kept beside the connection (not in ConnectionState: only SASL code reads it). */
const sessions = new WeakMap<ConnectionState, SessionState>();

function sessionOf(conn: ConnectionState): SessionState {
  let s = sessions.get(conn);
  if (!s)
    sessions.set(conn, (s = { expiresAtMs: null, reauthenticating: false, lastReauthStartMs: null, principal: null, mechanism: null }));
  return s;
}

export const MIN_REAUTH_INTERVAL_MS = 1000;

export function canBeginReauthentication(conn: ConnectionState, nowMs: number): boolean {
  const s = sessions.get(conn);
  if (!s || !conn.authenticated || s.expiresAtMs === null || s.reauthenticating) return false;
  return s.lastReauthStartMs === null || nowMs - s.lastReauthStartMs >= MIN_REAUTH_INTERVAL_MS;
}

/** The SaslHandshake that starts a re-authentication: the connection is unauthenticated until it ends. */
export function beginReauthentication(conn: ConnectionState, nowMs: number): void {
  const s = sessionOf(conn);
  s.reauthenticating = true;
  s.lastReauthStartMs = nowMs;
  conn.authenticated = false;
  conn.saslMechanism = null;
  conn.saslSession = undefined;
}

export function isReauthenticating(conn: ConnectionState): boolean {
  return sessions.get(conn)?.reauthenticating ?? false;
}

/** The mechanism the connection first authenticated with, when it is re-authenticating with another. */
export function reauthMechanismMismatch(conn: ConnectionState): string | null {
  const s = sessions.get(conn);
  if (!s?.reauthenticating || s.mechanism === conn.saslMechanism) return null;
  return `SASL mechanism '${conn.saslMechanism}' requested by client is not supported for re-authentication of mechanism '${s.mechanism}'`;
}

/** Whether this request meets an expired session: the connection is then closed, unanswered. */
export function sessionExpired(conn: ConnectionState, apiKey: number, nowMs: number): boolean {
  const s = sessions.get(conn);
  if (!s || s.expiresAtMs === null || !conn.authenticated || nowMs <= s.expiresAtMs) return false;
  return !(apiKey === 17 && canBeginReauthentication(conn, nowMs));
}

/**
 * The end of a successful exchange: the session's lifetime (what SaslAuthenticate v1+ answers),
 * or the failure when a re-authentication changed the principal.
 */
export function completeAuthentication(
  ctx: RequestContext,
  principal: string,
  credentialExpiresAtMs: number | null,
  extra: Pick<SaslAuthenticatedEvent, 'extensions' | 'tokenId'> = { extensions: {} },
): { sessionLifetimeMs: number } | { failed: string } {
  const s = sessionOf(ctx.conn);
  const nowMs = ctx.runtime.clock.now();
  const reauthentication = s.reauthenticating;
  if (reauthentication && s.principal !== principal) {
    return { failed: `Cannot change principals during re-authentication from User.${s.principal}: User.${principal}` };
  }
  const maxReauthMs = ctx.runtime.saslServer.connectionsMaxReauthMs;
  let sessionLifetimeMs = 0;
  s.expiresAtMs = null;
  if (credentialExpiresAtMs !== null || maxReauthMs > 0) {
    const credentialLeft = credentialExpiresAtMs === null ? Infinity : credentialExpiresAtMs - nowMs;
    sessionLifetimeMs = Math.max(0, Math.min(credentialLeft, maxReauthMs > 0 ? maxReauthMs : Infinity));
    s.expiresAtMs = nowMs + sessionLifetimeMs;
  }
  s.reauthenticating = false;
  s.principal = principal;
  s.mechanism = ctx.conn.saslMechanism;
  ctx.runtime.saslServer.onAuthenticated?.({
    brokerId: ctx.brokerId,
    connection: ctx.conn.remote,
    mechanism: ctx.conn.saslMechanism ?? '',
    principal,
    reauthentication,
    sessionLifetimeMs,
    ...extra,
  });
  return { sessionLifetimeMs };
}
