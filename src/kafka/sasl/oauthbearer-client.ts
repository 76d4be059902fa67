// The client side of SASL OAUTHBEARER (RFC 7628) as Kafka's OAuthBearerSaslClient speaks it, for
// @platformatic/kafka's `sasl.authenticate` hook, and the client options for a token mechanism.
//
// Why our own exchange rather than the library's: a broker that refuses a token does not answer
// SaslAuthenticate with an error at once. OAuthBearerSaslServer answers error_code 0 with the
// RFC 7628 error JSON ({"status":"invalid_token"}) as a server challenge; the client must send
// %x01 and only then gets SASL_AUTHENTICATION_FAILED (58). The library (2.12.1) takes the
// challenge for a success unless an authBytesValidator is set, and its validator reports the
// failure and then success too. Here the challenge is answered as Kafka's client does and the
// connection fails with the broker's message.
//
// The token is asked for at every (re-)authentication: the library re-authenticates through this
// same hook when the broker set session_lifetime_ms (KIP-368), so a re-authentication carries the
// token source's current, refreshed token.
import { AuthenticationError, type SASLCustomAuthenticator, type SASLOptions } from '@platformatic/kafka';
import type { TokenSaslConfig } from './config.js';
import { fetchMskIamToken } from './msk-iam.js';
import { fetchClientCredentialsToken, readTokenFile } from './oidc.js';
import { RefreshingToken, type TokenSourceOptions } from './token-source.js';

const KVSEP = '\x01';
/**
 * The longest session the library is told of: it re-authenticates on a setTimeout at 0.8 of
 * session_lifetime_ms, and a delay over 2^31-1 ms (a token valid for more than ~31 days, as a long
 * file token gives) fires at once, and again after every re-authentication: a storm that Kafka cuts
 * short by refusing re-authentications within a second of each other, failing the connection.
 * Capped, such a session is re-authenticated after ~24.8 days instead, well before it ends.
 */
export const MAX_SESSION_LIFETIME_MS = BigInt(Math.floor((2 ** 31 - 1) / 0.8));

/** RFC 7628 section 3.1 client initial response with KIP-342 extensions: n,,^Aauth=Bearer <t>^A[k=v^A]*^A */
export function clientFirstMessage(token: string, extensions: Readonly<Record<string, string>>): Buffer {
  const ext = Object.entries(extensions)
    .map(([k, v]) => `${k}=${v}${KVSEP}`)
    .join('');
  return Buffer.from(`n,,${KVSEP}auth=Bearer ${token}${KVSEP}${ext}${KVSEP}`, 'utf8');
}

/** The server's message of a failed SaslAuthenticate (a ResponseError's ProtocolError), if any. */
function serverMessage(err: unknown): string | undefined {
  const first = (err as { errors?: { apiId?: string; serverErrorMessage?: string | null }[] }).errors?.[0];
  if (first?.apiId === undefined) return undefined;
  return `${first.apiId}${first.serverErrorMessage ? `: ${first.serverErrorMessage}` : ''}`;
}

/** The status of an RFC 7628 section 3.2.2 error challenge, or undefined when authBytes are not one. */
export function challengeStatus(authBytes: Buffer): string | undefined {
  if (authBytes.length === 0) return undefined;
  try {
    const j = JSON.parse(authBytes.toString('utf8')) as { status?: unknown };
    return typeof j.status === 'string' ? j.status : 'unknown';
  } catch {
    return 'unparseable server challenge';
  }
}

export function oauthBearerAuthenticator(source: RefreshingToken, extensions: Readonly<Record<string, string>>): SASLCustomAuthenticator {
  return (_mechanism, connection, saslAuthenticate, _username, _password, _token, callback) => {
    const refused = (detail: string) => new AuthenticationError(`Kafka refused the OAUTHBEARER token from ${source.describe} (${detail})`);
    (async () => {
      let token: string;
      try {
        token = await source.token();
      } catch (e) {
        throw new AuthenticationError(`No OAUTHBEARER token: ${(e as Error).message}`);
      }
      let first;
      try {
        first = await saslAuthenticate.async(connection, clientFirstMessage(token, extensions));
      } catch (e) {
        const msg = serverMessage(e);
        if (msg === undefined) throw e; // not an answer (connection lost, timeout): as is
        throw refused(msg);
      }
      const status = challengeStatus(first.authBytes);
      if (status === undefined) {
        return first.sessionLifetimeMs > MAX_SESSION_LIFETIME_MS ? { ...first, sessionLifetimeMs: MAX_SESSION_LIFETIME_MS } : first;
      }
      // The error challenge: answer %x01 to get the broker's final error, as OAuthBearerSaslClient does.
      try {
        await saslAuthenticate.async(connection, Buffer.from(KVSEP));
      } catch (e) {
        const msg = serverMessage(e);
        if (msg === undefined) throw e;
        throw refused(msg.includes(status) ? msg : `${msg}; status ${status}`);
      }
      throw refused(`status ${status}`);
    })().then(
      (res) => callback(null, res),
      (err: Error) => callback(err, undefined as never),
    );
  };
}

export interface TokenSasl {
  options: SASLOptions;
  source: RefreshingToken;
}

/** The client's `sasl` options for OAUTHBEARER or AWS_MSK_IAM, with the token source behind them. */
export function createTokenSasl(cfg: TokenSaslConfig, opts: TokenSourceOptions = {}): TokenSasl {
  let source: RefreshingToken;
  if (cfg.mechanism === 'AWS_MSK_IAM') {
    source = new RefreshingToken(`the AWS MSK IAM signer (region ${cfg.region})`, () => fetchMskIamToken(cfg), cfg.refresh, opts);
  } else if (cfg.source.kind === 'oidc') {
    const oidc = cfg.source;
    source = new RefreshingToken(
      `token endpoint ${oidc.tokenEndpointUrl}`,
      () => fetchClientCredentialsToken(oidc, cfg.refresh.timeoutMs),
      cfg.refresh,
      opts,
    );
  } else {
    const file = cfg.source.tokenFile;
    source = new RefreshingToken(`token file ${file}`, () => readTokenFile(file), cfg.refresh, opts);
  }
  const extensions = cfg.mechanism === 'OAUTHBEARER' ? cfg.extensions : {};
  return {
    source,
    options: { mechanism: 'OAUTHBEARER', authenticate: oauthBearerAuthenticator(source, extensions) },
  };
}
