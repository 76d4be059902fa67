// Roles and the operations that need them. The role an operation needs is declared in
// openapi.yaml (`x-required-role` on each operation), never in route code, so a route
// added to the spec is covered the moment it exists. An operation that forgets the
// declaration is treated as admin-only (fail closed) and reported at startup; a test
// fails on it (test/http/auth-roles.test.ts). Which operation a request addresses is the
// route table's answer (src/http/route-table.ts), compiled from these operations.

/** Ordered: each role may do everything the roles before it may. */
export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Reachable without credentials: liveness, readiness, the API document. GET only. */
export const PUBLIC = 'public';
export type RequiredRole = Role | typeof PUBLIC;

export const REQUIRED_ROLE_EXTENSION = 'x-required-role';

/** Who is calling: set on res.locals.principal by the access-control middleware. */
export interface Principal {
  /** The stable caller name: audit lines, quota budgets and Kafka client ids key by it. */
  id: string;
  role: Role;
  /** Set for a caller that presented a verified OIDC JWT (src/http/auth/oidc.ts). */
  oidc?: OidcIdentity;
}

/** Who a verified JWT says the caller is, and why it has its role. */
export interface OidcIdentity {
  issuer: string;
  /** The token's `sub`. */
  subject: string;
  /** The OAuth client the token was issued to (`azp`, else `client_id`), when the token says. */
  client?: string;
  /** The claim value that mapped to the role, or the configured default role. */
  roleSource: { kind: 'claim'; claim: string; value: string } | { kind: 'default' };
}

/** The principal of every request when authentication is disabled (the embedded demo). */
export const ANONYMOUS_ADMIN: Readonly<Principal> = Object.freeze({ id: 'anonymous', role: 'admin' });

export function isRole(v: unknown): v is Role {
  return typeof v === 'string' && (ROLES as readonly string[]).includes(v);
}

export function roleAtLeast(have: Role, need: Role): boolean {
  return ROLES.indexOf(have) >= ROLES.indexOf(need);
}

export interface OperationAccess {
  method: string; // upper case
  route: string; // OpenAPI path template
  operationId: string | undefined;
  requiredRole: RequiredRole;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface AccessTable {
  readonly operations: readonly OperationAccess[];
  /** Declarations that are missing or wrong; each such operation was made admin-only. */
  readonly problems: readonly string[];
}

/** Reads x-required-role from every operation of an OpenAPI document. */
export function accessTableFromSpec(document: { paths?: Record<string, Record<string, unknown>> }): AccessTable {
  const operations: OperationAccess[] = [];
  const problems: string[] = [];
  for (const [route, item] of Object.entries(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as Record<string, unknown> | undefined;
      if (!op || typeof op !== 'object') continue;
      const operationId = typeof op.operationId === 'string' ? op.operationId : undefined;
      const where = `${method.toUpperCase()} ${route}${operationId ? ` (${operationId})` : ''}`;
      const declared = op[REQUIRED_ROLE_EXTENSION];
      let requiredRole: RequiredRole = 'admin';
      if (declared === undefined) {
        problems.push(`${where} has no ${REQUIRED_ROLE_EXTENSION}; treated as admin-only`);
      } else if (declared === PUBLIC) {
        if (method === 'get') requiredRole = PUBLIC;
        else problems.push(`${where}: ${REQUIRED_ROLE_EXTENSION}: public is only allowed on GET; treated as admin-only`);
      } else if (isRole(declared)) {
        requiredRole = declared;
      } else {
        problems.push(
          `${where}: ${REQUIRED_ROLE_EXTENSION} must be one of ${[...ROLES, PUBLIC].join(', ')}, got ${JSON.stringify(declared)}; treated as admin-only`,
        );
      }
      operations.push({ method: method.toUpperCase(), route, operationId, requiredRole });
    }
  }
  return { operations, problems };
}
