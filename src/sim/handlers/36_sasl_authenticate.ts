// SaslAuthenticate (36), v0-v2.
//
// PLAIN (RFC 4616): authBytes = [authzid] NUL authcid NUL passwd, one round.
// SCRAM-SHA-256/512 (RFC 5802/7677, KIP-84): two rounds on the same connection -
// client-first → server-first (salt, iterations, nonce), client-final (proof) →
// server-final (server signature); see ../sasl/scram.ts.
// A wrong user or password → SASL_AUTHENTICATION_FAILED (58) with Kafka's message
// (PLAIN: "Authentication failed: Invalid username or password"; SCRAM: "...due to
// invalid credentials with SASL mechanism SCRAM-SHA-256"), and Kafka then closes the
// connection after the response. Without a preceding SaslHandshake, or after the
// exchange completed → ILLEGAL_SASL_STATE (34). On a listener without SASL, and after
// authentication, the request reaches KafkaApis.handleSaslAuthenticateRequest: 34
// "SaslAuthenticate request received after successful authentication".
// OAUTHBEARER (RFC 7628, KIP-255/768): one round, or two when the token is refused (the
// {"status":"invalid_token"} challenge, then %x01 → 58); see ../sasl/oauthbearer.ts.
// v1+ reports session_lifetime_ms (KIP-368): the token's remaining life and/or
// connections.max.reauth.ms, 0 when neither; a re-authentication (SaslHandshake on an
// authenticated connection) runs the same exchange; see ../sasl/session.ts.
import { timingSafeEqual } from 'node:crypto';
import {
  SaslAuthenticateRequestSchema,
  SaslAuthenticateResponseSchema,
  type SaslAuthenticateRequest,
  type SaslAuthenticateResponse,
} from '../protocol/messages.generated.js';
import { OAuthBearerServerSession } from '../sasl/oauthbearer.js';
import { isScramMechanism, ScramServerSession } from '../sasl/scram.js';
import { completeAuthentication, reauthMechanismMismatch } from '../sasl/session.js';
import { defineHandler, type RequestContext } from './types.js';

const EMPTY = Buffer.alloc(0);

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function failed(ctx: RequestContext, errorMessage: string): SaslAuthenticateResponse {
  // Kafka closes the connection once this response is written.
  ctx.conn.closeAfterResponse = true;
  return { errorCode: 58, errorMessage, authBytes: EMPTY };
}

function authenticated(
  ctx: RequestContext,
  user: string,
  authBytes: Buffer,
  credentialExpiresAtMs: number | null = null,
  extra?: Parameters<typeof completeAuthentication>[3],
): SaslAuthenticateResponse {
  const done = completeAuthentication(ctx, user, credentialExpiresAtMs, extra);
  if ('failed' in done) return failed(ctx, done.failed);
  ctx.conn.user = user;
  ctx.conn.authenticated = true;
  ctx.conn.saslSession = undefined;
  return { errorCode: 0, errorMessage: null, authBytes, sessionLifetimeMs: BigInt(done.sessionLifetimeMs) };
}

async function oauthBearer(ctx: RequestContext, req: SaslAuthenticateRequest): Promise<SaslAuthenticateResponse> {
  const validator = ctx.runtime.saslServer.oauthBearer;
  if (!validator) throw new Error('unreachable: OAUTHBEARER is not enabled');
  let session = ctx.conn.saslSession as OAuthBearerServerSession | undefined;
  if (!session) ctx.conn.saslSession = session = new OAuthBearerServerSession(validator);
  const step = await session.step(req.authBytes, ctx.runtime.clock.now());
  if (step.kind === 'failed') return failed(ctx, step.message);
  if (step.kind === 'challenge') return { errorCode: 0, errorMessage: null, authBytes: step.response, sessionLifetimeMs: 0n };
  return authenticated(ctx, step.token.principal, EMPTY, step.token.expiresAtMs, {
    extensions: step.extensions,
    tokenId: step.token.tokenId,
  });
}

function plain(ctx: RequestContext, req: SaslAuthenticateRequest): SaslAuthenticateResponse {
  const parts = req.authBytes.toString('utf8').split('\u0000');
  const [, user, password] = parts;
  const expected = user !== undefined ? ctx.runtime.saslPlainUsers[user] : undefined;
  if (parts.length !== 3 || !user || expected === undefined || !sameSecret(password ?? '', expected)) {
    return failed(ctx, 'Authentication failed: Invalid username or password');
  }
  return authenticated(ctx, user, EMPTY);
}

function scram(ctx: RequestContext, req: SaslAuthenticateRequest): SaslAuthenticateResponse {
  const mechanism = ctx.conn.saslMechanism;
  if (!isScramMechanism(mechanism)) throw new Error('unreachable: not a SCRAM mechanism');
  let session = ctx.conn.saslSession as ScramServerSession | undefined;
  if (!session) {
    session = new ScramServerSession(mechanism, (user) => ctx.runtime.saslScramUsers.lookup(mechanism, user));
    ctx.conn.saslSession = session;
  }
  const step = session.step(req.authBytes);
  if (step.kind === 'failed') return failed(ctx, step.message);
  if (step.kind === 'continue') return { errorCode: 0, errorMessage: null, authBytes: step.response, sessionLifetimeMs: 0n };
  return authenticated(ctx, step.user, step.response);
}

export const saslAuthenticateHandler = defineHandler<SaslAuthenticateRequest, SaslAuthenticateResponse>({
  apiKey: 36,
  name: 'SaslAuthenticate',
  request: SaslAuthenticateRequestSchema,
  response: SaslAuthenticateResponseSchema,
  allowedBeforeAuthentication: true,
  handle(ctx, req) {
    if (!ctx.runtime.saslRequired || (ctx.conn.authenticated && ctx.conn.user !== null)) {
      return { errorCode: 34, errorMessage: 'SaslAuthenticate request received after successful authentication', authBytes: EMPTY };
    }
    if (ctx.conn.saslMechanism === null) {
      return { errorCode: 34, errorMessage: 'Unexpected SASL authentication request', authBytes: EMPTY };
    }
    // REAUTH_BAD_MECHANISM: SaslServerAuthenticator fails the channel without an answer.
    if (reauthMechanismMismatch(ctx.conn) !== null) throw new Error(reauthMechanismMismatch(ctx.conn)!);
    if (ctx.conn.saslMechanism === 'OAUTHBEARER') return oauthBearer(ctx, req);
    return ctx.conn.saslMechanism === 'PLAIN' ? plain(ctx, req) : scram(ctx, req);
  },
});
