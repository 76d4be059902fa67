// SaslHandshake (17), v0-v1.
//
// Names the mechanism the client will use; the bytes then travel in SaslAuthenticate
// (v1; v0 framed raw tokens without Kafka headers, which no client we test uses, so
// only v1 is served). Unknown mechanism → UNSUPPORTED_SASL_MECHANISM (33) with the
// list of enabled ones. A second handshake on an authenticated connection →
// ILLEGAL_SASL_STATE (34).
import { SaslHandshakeRequestSchema, SaslHandshakeResponseSchema, type SaslHandshakeRequest, type SaslHandshakeResponse } from '../protocol/messages.generated.js';
import { defineHandler } from './types.js';

export const ENABLED_MECHANISMS = ['PLAIN'];

export const saslHandshakeHandler = defineHandler<SaslHandshakeRequest, SaslHandshakeResponse>({
  apiKey: 17,
  name: 'SaslHandshake',
  request: SaslHandshakeRequestSchema,
  response: SaslHandshakeResponseSchema,
  versions: [1, 1],
  allowedBeforeAuthentication: true,
  handle(ctx, req) {
    if (ctx.conn.saslMechanism !== null || (ctx.conn.authenticated && ctx.runtime.saslRequired)) {
      return { errorCode: 34, mechanisms: ENABLED_MECHANISMS };
    }
    if (!ENABLED_MECHANISMS.includes(req.mechanism)) return { errorCode: 33, mechanisms: ENABLED_MECHANISMS };
    ctx.conn.saslMechanism = req.mechanism;
    return { errorCode: 0, mechanisms: ENABLED_MECHANISMS };
  },
});
