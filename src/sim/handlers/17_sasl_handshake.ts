// SaslHandshake (17), v0-v1.
//
// Names the mechanism the client will use; the bytes then travel in SaslAuthenticate
// (v1; v0 framed raw tokens without Kafka headers, which no client we test uses, so
// only v1 is served). Enabled mechanisms (runtime.saslMechanisms): PLAIN when
// saslPlainUsers is set, SCRAM-SHA-256 and SCRAM-SHA-512 when saslScramUsers is set.
// Unknown or disabled mechanism → UNSUPPORTED_SASL_MECHANISM (33) with the list of
// enabled ones. A second handshake on an authenticated connection →
// ILLEGAL_SASL_STATE (34).
// - A listener without SASL (the simulator without saslPlainUsers/saslScramUsers: PLAINTEXT)
//   has no SaslServerAuthenticator: the handshake reaches KafkaApis.handleSaslHandshakeRequest,
//   which always answers ILLEGAL_SASL_STATE (34), whatever the mechanism. So does a SASL
//   listener once the connection is authenticated (the same method).
// - 34 comes with no mechanisms: handleSaslHandshakeRequest and SaslHandshakeRequest
//   .getErrorResponse (SaslServerAuthenticator's answer mid-exchange) set only the error code.
// - On an authenticated connection whose session has an expiry (KIP-368), the handshake begins a
//   re-authentication instead (KafkaChannel.maybeBeginServerReauthentication; ../sasl/session.ts),
//   at most once a second; then the exchange runs again as for a new connection.
import { beginReauthentication, canBeginReauthentication } from '../sasl/session.js';
import {
  SaslHandshakeRequestSchema,
  SaslHandshakeResponseSchema,
  type SaslHandshakeRequest,
  type SaslHandshakeResponse,
} from '../protocol/messages.generated.js';
import { defineHandler } from './types.js';

export const saslHandshakeHandler = defineHandler<SaslHandshakeRequest, SaslHandshakeResponse>({
  apiKey: 17,
  name: 'SaslHandshake',
  request: SaslHandshakeRequestSchema,
  response: SaslHandshakeResponseSchema,
  versions: [1, 1],
  allowedBeforeAuthentication: true,
  handle(ctx, req) {
    const now = ctx.runtime.clock.now();
    if (ctx.runtime.saslRequired && canBeginReauthentication(ctx.conn, now)) beginReauthentication(ctx.conn, now);
    if (!ctx.runtime.saslRequired || ctx.conn.saslMechanism !== null || ctx.conn.authenticated) {
      return { errorCode: 34, mechanisms: [] };
    }
    const mechanisms = [...ctx.runtime.saslMechanisms];
    if (!mechanisms.includes(req.mechanism)) return { errorCode: 33, mechanisms };
    ctx.conn.saslMechanism = req.mechanism;
    return { errorCode: 0, mechanisms };
  },
});
