/**
 * Which Kafka client id a REST caller's requests carry (issue 4, "who is charged").
 *
 * Kafka keys client-id quotas, the controller mutation quota included, by the client id in
 * each request header. If every REST caller shared the gateway's one client id, one noisy
 * caller would spend everybody's budget; rendering a pattern such as
 * `kafka-admin-gateway/{principal}` gives each caller its own client id, so a default
 * client-id quota (`PUT /quotas {"entity":{"clientId":null},...}`) becomes a per-caller quota.
 *
 * The principal is escaped so the mapping is one-to-one (two callers never share a client
 * id) and the result stays readable: [A-Za-z0-9._@-] are kept, every other byte of the
 * UTF-8 encoding becomes %XX (so '%' itself is escaped and decoding is unambiguous).
 */

export const PRINCIPAL_PLACEHOLDER = '{principal}';

/** Kafka sends client ids as INT16-length strings; stay well inside it. */
export const MAX_CLIENT_ID_LENGTH = 1024;

export function escapePrincipal(principalId: string): string {
  let out = '';
  for (const byte of Buffer.from(principalId, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9._@-]/.test(c) ? c : '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** Why a pattern is unusable, or undefined when it is fine. */
export function clientIdPatternError(pattern: string): string | undefined {
  if (!pattern.includes(PRINCIPAL_PLACEHOLDER)) return `must contain ${PRINCIPAL_PLACEHOLDER}, got "${pattern}"`;
  if (/\s/.test(pattern)) return `must not contain whitespace, got "${pattern}"`;
  if (/[{}]/.test(pattern.split(PRINCIPAL_PLACEHOLDER).join('')))
    return `has a brace other than ${PRINCIPAL_PLACEHOLDER}, got "${pattern}"`;
  return undefined;
}

/** `kafka-admin-gateway/{principal}` + `alice@example.com` -> `kafka-admin-gateway/alice@example.com`. */
export function callerClientId(pattern: string, principalId: string): string {
  const id = pattern.split(PRINCIPAL_PLACEHOLDER).join(escapePrincipal(principalId));
  if (id.length > MAX_CLIENT_ID_LENGTH) throw new RangeError(`client id for principal is longer than ${MAX_CLIENT_ID_LENGTH} characters`);
  return id;
}
