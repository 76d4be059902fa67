// Mutual TLS: a client certificate verified against GATEWAY_TLS_CLIENT_CA_FILE is an
// identity; GATEWAY_TLS_CLIENT_ROLES says which identities get which role. A verified
// certificate that no rule names grants nothing (the caller may still send a token).
//
//   GATEWAY_TLS_CLIENT_ROLES="ops-bot=operator,spiffe://corp/ci=viewer"
//
// A rule's name is compared with the certificate's subject CN and with each of its
// subjectAltName values (DNS, URI, email, IP), exactly.
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { isRole, ROLES, type Principal, type Role } from './roles.js';

export interface ClientCertRule {
  name: string;
  role: Role;
}

export function parseClientCertRoles(value: string | undefined, source = 'GATEWAY_TLS_CLIENT_ROLES'): ClientCertRule[] {
  const v = value?.trim() ?? '';
  if (v === '') return [];
  const problems: string[] = [];
  const rules: ClientCertRule[] = [];
  for (const item of v.split(/[\s,]+/).filter(Boolean)) {
    const eq = item.lastIndexOf('=');
    const name = eq > 0 ? item.slice(0, eq) : '';
    const role = eq > 0 ? item.slice(eq + 1) : '';
    if (!name || !isRole(role)) problems.push(`${source}: "${item}" is not <cn-or-san>=<${ROLES.join('|')}>`);
    else if (rules.some((r) => r.name === name)) problems.push(`${source}: "${name}" appears twice`);
    else rules.push({ name, role });
  }
  if (problems.length) throw new Error(problems.join('; '));
  return rules;
}

/** Subject CN and every subjectAltName value ("DNS:a, URI:spiffe://x" -> ["a", "spiffe://x"]). */
export function certificateIdentities(cert: Pick<PeerCertificate, 'subject' | 'subjectaltname'>): string[] {
  const ids: string[] = [];
  const cn = cert.subject?.CN;
  if (typeof cn === 'string' && cn) ids.push(cn);
  else if (Array.isArray(cn)) ids.push(...cn);
  for (const part of (cert.subjectaltname ?? '').split(/,\s*/)) {
    const colon = part.indexOf(':');
    if (colon > 0) ids.push(part.slice(colon + 1));
  }
  return ids;
}

/** The principal of a verified client certificate on this socket, if a rule names it. */
export function principalFromClientCert(socket: unknown, rules: readonly ClientCertRule[]): Principal | undefined {
  if (rules.length === 0) return undefined;
  const tlsSocket = socket as Partial<TLSSocket> | undefined;
  // `authorized` is only true when the chain verified against the configured client CA.
  if (!tlsSocket || typeof tlsSocket.getPeerCertificate !== 'function' || tlsSocket.authorized !== true) return undefined;
  const cert = tlsSocket.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) return undefined;
  const ids = new Set(certificateIdentities(cert));
  const rule = rules.find((r) => ids.has(r.name));
  return rule && { id: `cert:${rule.name}`, role: rule.role };
}
