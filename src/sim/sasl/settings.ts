// The broker-wide SASL settings the handlers read (SimulatorRuntime.saslServer) and the event a
// successful authentication reports: their own module, so handlers/types.ts can name them without
// an import cycle through ./session.ts.
import type { OAuthBearerValidator } from './oauthbearer.js';

export interface SaslAuthenticatedEvent {
  brokerId: number;
  /** The client's address:port: one connection. */
  connection: string;
  mechanism: string;
  principal: string;
  reauthentication: boolean;
  /** What SaslAuthenticate answered (0: no expiry). */
  sessionLifetimeMs: number;
  extensions: Record<string, string>;
  /** OAUTHBEARER: which token (jti or iat; an MSK token's expiry), never the token itself. */
  tokenId?: string;
}

/** The broker-wide SASL settings beyond users (SimulatorOptions.saslOAuthBearer, connectionsMaxReauthMs). */
export interface SaslServerSettings {
  readonly oauthBearer: OAuthBearerValidator | null;
  /** connections.max.reauth.ms; 0 = none. */
  readonly connectionsMaxReauthMs: number;
  readonly onAuthenticated?: (e: SaslAuthenticatedEvent) => void;
}
