// SaslAuthenticate (36), v0-v2.
//
// PLAIN (RFC 4616): authBytes = [authzid] NUL authcid NUL passwd. A wrong user or
// password → SASL_AUTHENTICATION_FAILED (58) "Authentication failed: Invalid username
// or password", and Kafka then closes the connection after the response. Without a
// preceding SaslHandshake → ILLEGAL_SASL_STATE (34). v1+ reports session_lifetime_ms
// (0: no re-authentication required).
import { timingSafeEqual } from 'node:crypto';
import { SaslAuthenticateRequestSchema, SaslAuthenticateResponseSchema, type SaslAuthenticateRequest, type SaslAuthenticateResponse } from '../protocol/messages.generated.js';
import { defineHandler } from './types.js';

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export const saslAuthenticateHandler = defineHandler<SaslAuthenticateRequest, SaslAuthenticateResponse>({
  apiKey: 36,
  name: 'SaslAuthenticate',
  request: SaslAuthenticateRequestSchema,
  response: SaslAuthenticateResponseSchema,
  allowedBeforeAuthentication: true,
  handle(ctx, req) {
    if (ctx.conn.saslMechanism !== 'PLAIN' || ctx.conn.authenticated && ctx.conn.user !== null) {
      return { errorCode: 34, errorMessage: 'Unexpected SASL authentication request', authBytes: Buffer.alloc(0) };
    }
    const parts = req.authBytes.toString('utf8').split('\u0000');
    const [, user, password] = parts;
    const expected = user !== undefined ? ctx.runtime.saslPlainUsers[user] : undefined;
    if (parts.length !== 3 || !user || expected === undefined || !sameSecret(password ?? '', expected)) {
      // Kafka closes the connection once this response is written.
      ctx.conn.closeAfterResponse = true;
      return { errorCode: 58, errorMessage: 'Authentication failed: Invalid username or password', authBytes: Buffer.alloc(0) };
    }
    ctx.conn.user = user;
    ctx.conn.authenticated = true;
    return { errorCode: 0, errorMessage: null, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n };
  },
});
