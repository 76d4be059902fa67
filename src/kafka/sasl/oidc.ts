// Where OAUTHBEARER tokens come from: an OIDC token endpoint (OAuth 2.0 client credentials grant,
// RFC 6749 section 4.4) or a file another process keeps current (a Kubernetes projected token, a
// sidecar). As Kafka's HttpAccessTokenRetriever: POST grant_type=client_credentials[&scope=...]
// with HTTP Basic client authentication (id and secret URL-encoded first, RFC 6749 section 2.3.1),
// `access_token` from the JSON answer. The lifetime is the JWT's exp (and iat) when the token is
// a JWT, else the answer's expires_in. Neither the secret nor the token ever goes into an error.
import { readFile } from 'node:fs/promises';
import { decodeJwt } from 'jose';
import type { OAuthBearerTokenSource } from './config.js';
import { TransientTokenError, type FetchedToken } from './token-source.js';

export type ReadText = (path: string) => Promise<string>;
const readText: ReadText = (p) => readFile(p, 'utf8');

/** exp/iat of a JWT in ms, or undefined when the value is not a JWT with an exp. */
export function jwtLifetime(token: string): { expiresAtMs: number; issuedAtMs?: number } | undefined {
  if (token.split('.').length !== 3) return undefined;
  try {
    const claims = decodeJwt(token);
    if (typeof claims.exp !== 'number') return undefined;
    return { expiresAtMs: claims.exp * 1000, ...(typeof claims.iat === 'number' && { issuedAtMs: claims.iat * 1000 }) };
  } catch {
    return undefined;
  }
}

/** A short, token-free reading of an error answer: RFC 6749 section 5.2's error and description. */
function errorSummary(body: string): string {
  try {
    const j = JSON.parse(body) as { error?: unknown; error_description?: unknown };
    const parts = [j.error, j.error_description].filter((x): x is string => typeof x === 'string');
    if (parts.length) return parts.join(': ').slice(0, 300);
  } catch {
    // not JSON: say nothing of the body
  }
  return 'no OAuth error in the answer';
}

export async function fetchClientCredentialsToken(
  source: Extract<OAuthBearerTokenSource, { kind: 'oidc' }>,
  timeoutMs: number,
  now: () => number = Date.now,
  read: ReadText = readText,
): Promise<FetchedToken> {
  const where = `token endpoint ${source.tokenEndpointUrl}`;
  let secret = source.clientSecret;
  if (secret === undefined) {
    try {
      secret = (await read(source.clientSecretFile!)).trim();
    } catch (e) {
      throw new Error(
        `KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE: cannot read ${source.clientSecretFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
  }
  const basic = Buffer.from(`${encodeURIComponent(source.clientId)}:${encodeURIComponent(secret)}`).toString('base64');
  const body = new URLSearchParams({ grant_type: 'client_credentials', ...(source.scope !== undefined && { scope: source.scope }) });
  const sentAt = now();
  let res: Response;
  try {
    res = await fetch(source.tokenEndpointUrl, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    // fetch's TypeError says only "fetch failed"; the cause has the code (ECONNREFUSED, ...).
    const cause = (e as { cause?: { code?: string; message?: string; errors?: { code?: string }[] } }).cause;
    const why = cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (e as Error).message;
    throw new TransientTokenError(`${where} did not answer (${why})`);
  }
  const text = await res.text().catch(() => '');
  if (!res.ok) {
    const msg = `${where} answered HTTP ${res.status} (${errorSummary(text)})`;
    // 5xx and 429 may pass; 400/401/403 (wrong client, secret or scope) will not.
    throw res.status >= 500 || res.status === 429 ? new TransientTokenError(msg) : new Error(msg);
  }
  let answer: { access_token?: unknown; expires_in?: unknown };
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
    throw new Error(`${where} answered HTTP ${res.status} with a body that is not JSON`);
  }
  const value = answer.access_token;
  if (typeof value !== 'string' || value === '' || !/^[-_.a-zA-Z0-9+/=~]+$/.test(value)) {
    throw new Error(`${where}: the answer has no usable access_token`);
  }
  const jwt = jwtLifetime(value);
  if (jwt) return { value, expiresAtMs: jwt.expiresAtMs, issuedAtMs: jwt.issuedAtMs ?? sentAt };
  if (typeof answer.expires_in === 'number' && answer.expires_in > 0) {
    return { value, issuedAtMs: sentAt, expiresAtMs: sentAt + answer.expires_in * 1000 };
  }
  throw new Error(`${where}: the access token is not a JWT with an exp claim and the answer has no expires_in`);
}

/** The token in `path`, read afresh each time (whoever writes it keeps it current). */
export async function readTokenFile(path: string, read: ReadText = readText): Promise<FetchedToken> {
  let value: string;
  try {
    value = (await read(path)).trim();
  } catch (e) {
    // A file being replaced may be missing for a moment: try again shortly.
    throw new TransientTokenError(
      `KAFKA_SASL_OAUTHBEARER_TOKEN_FILE: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  const jwt = jwtLifetime(value);
  if (!jwt) throw new Error(`KAFKA_SASL_OAUTHBEARER_TOKEN_FILE: ${path} does not hold a JWT with an exp claim`);
  return { value, expiresAtMs: jwt.expiresAtMs, issuedAtMs: jwt.issuedAtMs ?? Date.now() };
}
