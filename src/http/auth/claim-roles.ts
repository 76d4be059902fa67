/**
 * Which role a verified token's claims give its caller (issue 33, OIDC callers).
 *
 * An identity provider says what a caller is in a claim: Keycloak in `realm_access.roles` or
 * `groups`, Entra ID and Okta in `roles` / `groups`, GitHub Actions in `repository`, `sub` or
 * `job_workflow_ref`. The configuration names the claims to read and maps claim values to
 * roles; the highest mapped role wins (a caller in both `kafka-viewers` and `kafka-admins` is
 * an admin), and a default role, when configured, applies only when nothing maps.
 *
 * Pure: plain data in, a decision out, with where the role came from so /whoami and the
 * audit can say why the caller has it.
 */

/** Claim values read per claim: a token is at most a few KiB, this only bounds odd ones. */
export const MAX_CLAIM_VALUES = 1000;

export interface ClaimRoleRule<R extends string> {
  /** Claim paths, e.g. `roles`, `groups`, `realm_access.roles`, `https://example.com/roles`. */
  readonly claims: readonly string[];
  /** Exact (case-sensitive) claim value -> role. */
  readonly map: ReadonlyMap<string, R>;
  readonly defaultRole?: R;
}

export type RoleSource = { kind: 'claim'; claim: string; value: string } | { kind: 'default' };

export type RoleDecision<R extends string> = { role: R; source: RoleSource } | { role: undefined };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The claim at `path`. A top-level claim named exactly `path` wins (namespaced claims such
 * as Auth0's `https://example.com/roles` contain dots); otherwise the path is split on dots
 * and walked through nested objects (`realm_access.roles`).
 */
export function claimAt(claims: unknown, path: string): unknown {
  if (!isRecord(claims)) return undefined;
  if (Object.hasOwn(claims, path)) return claims[path];
  let at: unknown = claims;
  for (const key of path.split('.')) {
    if (!isRecord(at) || !Object.hasOwn(at, key)) return undefined;
    at = at[key];
  }
  return at;
}

/** The string values of a claim: a string is one value, an array gives its strings; anything else none. */
export function claimValues(claims: unknown, path: string): string[] {
  const v = claimAt(claims, path);
  if (typeof v === 'string') return [v];
  if (!Array.isArray(v)) return [];
  return v.slice(0, MAX_CLAIM_VALUES).filter((x): x is string => typeof x === 'string');
}

/**
 * The highest role any configured claim value maps to (ranked by `order`, lowest first);
 * the default role when none maps; no role otherwise. Ties keep the first claim and value
 * found, so the source is deterministic for a given token.
 */
export function roleFromClaims<R extends string>(claims: unknown, rule: ClaimRoleRule<R>, order: readonly R[]): RoleDecision<R> {
  let best: { role: R; rank: number; source: RoleSource } | undefined;
  for (const claim of rule.claims) {
    for (const value of claimValues(claims, claim)) {
      const role = rule.map.get(value);
      if (role === undefined) continue;
      const rank = order.indexOf(role);
      if (rank < 0) continue;
      if (!best || rank > best.rank) best = { role, rank, source: { kind: 'claim', claim, value } };
    }
  }
  if (best) return { role: best.role, source: best.source };
  if (rule.defaultRole !== undefined) return { role: rule.defaultRole, source: { kind: 'default' } };
  return { role: undefined };
}
