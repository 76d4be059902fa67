// SaslHandshake (17), v0-v1.
//
// Names the mechanism the client will use; the bytes then travel in SaslAuthenticate
// (v1; v0 framed raw tokens without Kafka headers, which no client we test uses, so
// only v1 is served). Enabled mechanisms (runtime.saslMechanisms): PLAIN when
// saslPlainUsers is set, SCRAM-SHA-256 and SCRAM-SHA-512 when saslScramUsers is set.
// Unknown or disabled mechanism → UNSUPPORTED_SASL_MECHANISM (33) with the list of
// enabled ones. A second handshake on an authenticated connection →
// ILLEGAL_SASL_STATE (34).
import { SaslHandshakeRequestSchema, SaslHandshakeResponseSchema, type SaslHandshakeRequest, type SaslHandshakeResponse } from '../protocol/messages.generated.js';
import { defineHandler } from './types.js';

export const saslHandshakeHandler = defineHandler<SaslHandshakeRequest, SaslHandshakeResponse>({
  apiKey: 17,
  name: 'SaslHandshake',
  request: SaslHandshakeRequestSchema,
  response: SaslHandshakeResponseSchema,
  versions: [1, 1],
  allowedBeforeAuthentication: true,
  handle(ctx, req) {
    const mechanisms = [...ctx.runtime.saslMechanisms];
    if (ctx.conn.saslMechanism !== null || (ctx.conn.authenticated && ctx.runtime.saslRequired)) {
      return { errorCode: 34, mechanisms };
    }
    if (!mechanisms.includes(req.mechanism)) return { errorCode: 33, mechanisms };
    ctx.conn.saslMechanism = req.mechanism;
    return { errorCode: 0, mechanisms };
  },
});
