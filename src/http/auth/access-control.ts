// THE access-control middleware: who is calling (authentication) and may they call this
// operation (authorization, from x-required-role in openapi.yaml). It runs before the
// body is parsed or validated, so an anonymous or under-privileged caller learns
// nothing about an operation's schema and costs the gateway no parsing.
//
// The operation is the route table's match (src/http/route-table.ts), stored on the request
// before this runs; nothing here matches paths. It fails closed: a request that addresses no
// operation of the contract is answered 404/405 here (after authentication, so unknown routes
// are not discoverable without credentials), never passed on for someone else to match.
//
// Contract for route code: res.locals.principal = { id, role } on every request that
// reaches a non-public route (ANONYMOUS_ADMIN when authentication is disabled).
//
// Who, in order: a mapped client certificate; a configured static token; a JWT from the
// configured OIDC issuer (src/http/auth/oidc.ts; the only asynchronous path, as its keys may
// have to be fetched). A refused JWT gets a 401 that says why (error_description); a valid
// one whose claims map to no role a 403; an unreachable key set a 503 (the token may be fine).
import type { Request, RequestHandler, Response } from 'express';
import { instanceOf } from '../error-handler.js';
import type { Logger } from '../../observability/logger.js';
import { problemType, sendProblem } from '../problem.js';
import { requestIdOf } from '../request-id.js';
import { principalFromClientCert, type ClientCertRule } from './client-cert.js';
import { routeMatchOf, sendRouteRefusal } from '../route-table.js';
import { looksLikeJwt, type OidcOutcome, type OidcVerifier } from './oidc.js';
import { ANONYMOUS_ADMIN, PUBLIC, roleAtLeast, type Principal } from './roles.js';
import { isWellFormedBearerToken, type TokenStore } from './tokens.js';

export const AUTH_REALM = 'kafka-admin-gateway';

export type AccessControlOptions =
  /** Everyone is ANONYMOUS_ADMIN. Only the embedded demo, or GATEWAY_AUTH=none. */
  { mode: 'none' } | { mode: 'enforced'; tokens: TokenStore; clientCertRoles?: readonly ClientCertRule[]; oidc?: OidcVerifier };

/** res.locals.principal, typed. Undefined on public routes. */
export function principalOf(res: Response): Principal | undefined {
  const p: unknown = res.locals.principal;
  return typeof p === 'object' && p !== null && typeof (p as Principal).id === 'string' ? (p as Principal) : undefined;
}

type Credentials =
  | { kind: 'none' }
  | { kind: 'malformed' } // an Authorization header that is not "Bearer <b64token>"
  | { kind: 'bearer'; token: string };

/** `jwt`: OIDC is configured, so a longer bearer token shaped like a JWT is a credential too. */
function credentialsOf(req: Request, jwt: boolean): Credentials {
  const header = req.headers.authorization;
  if (header === undefined || header === '') return { kind: 'none' };
  const m = /^Bearer +(\S+) *$/i.exec(header);
  // A JWT may be longer than the gateway's own tokens (a few KiB with many groups).
  if (!m || !(isWellFormedBearerToken(m[1]) || (jwt && looksLikeJwt(m[1])))) return { kind: 'malformed' };
  return { kind: 'bearer', token: m[1] };
}

/** RFC 6750 section 3: error_description is printable ASCII without '"' and '\\'. */
function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]|["\\]/g, "'").slice(0, 300);
}

function unauthorized(
  req: Request,
  res: Response,
  error: 'invalid_request' | 'invalid_token' | undefined,
  detail: string,
  description?: string,
): void {
  // RFC 6750 section 3: no error code when no credentials were sent at all.
  const challenge = `Bearer realm="${AUTH_REALM}"${error ? `, error="${error}"` : ''}${description ? `, error_description="${headerSafe(description)}"` : ''}`;
  sendProblem(res, {
    problem: {
      type: problemType(error ? 'invalid-credentials' : 'authentication-required'),
      title: error ? 'Invalid credentials' : 'Authentication required',
      status: 401,
      detail,
      instance: instanceOf(req.originalUrl),
    },
    headers: { 'WWW-Authenticate': challenge },
  });
}

export function accessControl(opts: AccessControlOptions, logger: Logger): RequestHandler {
  const denied = (req: Request, res: Response, status: number, reason: string, principal?: Principal | { id: string }): void =>
    // A security event worth keeping, without the credential itself.
    logger.warn('access denied', {
      type: 'access-denied',
      requestId: requestIdOf(res),
      status,
      reason,
      method: req.method,
      path: instanceOf(req.originalUrl),
      ...(principal && { principal }),
      remoteAddress: req.socket.remoteAddress,
    });

  return (req, res, next) => {
    const match = routeMatchOf(res);
    if (match.kind === 'operation' && match.operation.requiredRole === PUBLIC) return next();
    const principal = opts.mode === 'none' ? ANONYMOUS_ADMIN : authenticate(req, res, opts);
    if (principal instanceof Promise) {
      principal.then((p) => p && authorize(req, res, next, p)).catch(next);
      return;
    }
    if (principal) authorize(req, res, next, principal);
  };

  function authorize(req: Request, res: Response, next: (err?: unknown) => void, principal: Principal): void {
    const match = routeMatchOf(res);
    res.locals.principal = principal;

    // 2. May they: no operation, no pass. The caller is authenticated, so saying that a route
    // or method does not exist is fine.
    if (match.kind !== 'operation') return sendRouteRefusal(req, res, match);
    const { operation } = match;
    if (operation.requiredRole !== PUBLIC && !roleAtLeast(principal.role, operation.requiredRole)) {
      denied(req, res, 403, `role ${principal.role} < ${operation.requiredRole}`, principal);
      const operationName = operation.operationId ?? `${operation.method} ${operation.route}`;
      return sendProblem(res, {
        problem: {
          type: problemType('insufficient-role'),
          title: 'Insufficient role',
          status: 403,
          detail: `${operationName} requires the ${operation.requiredRole} role; ${principal.id} has ${principal.role}.`,
          instance: instanceOf(req.originalUrl),
        },
      });
    }
    next();
  }

  /** 1. Who: a mapped client certificate wins; otherwise a bearer token. Answers 401 itself when nobody. */
  function authenticate(
    req: Request,
    res: Response,
    enforced: Extract<AccessControlOptions, { mode: 'enforced' }>,
  ): Principal | undefined | Promise<Principal | undefined> {
    const fromCert = principalFromClientCert(req.socket, enforced.clientCertRoles ?? []);
    if (fromCert) return fromCert;
    const creds = credentialsOf(req, enforced.oidc !== undefined);
    if (creds.kind === 'none') {
      denied(req, res, 401, 'no credentials');
      return void unauthorized(req, res, undefined, 'Send an Authorization: Bearer <token> header.');
    }
    if (creds.kind === 'malformed') {
      denied(req, res, 401, 'malformed Authorization header');
      return void unauthorized(req, res, 'invalid_request', 'The Authorization header must be "Bearer <token>".');
    }
    const principal = enforced.tokens.verify(creds.token);
    if (principal) return principal;
    if (enforced.oidc && looksLikeJwt(creds.token))
      return enforced.oidc.verify(creds.token).then((outcome) => answerOidc(req, res, outcome));
    denied(req, res, 401, 'unknown token');
    return void unauthorized(req, res, 'invalid_token', 'The bearer token is not valid.');
  }

  /** The principal of a verified JWT, or the answer that says why there is none. */
  function answerOidc(req: Request, res: Response, outcome: OidcOutcome): Principal | undefined {
    switch (outcome.kind) {
      case 'ok':
        return outcome.principal;
      case 'invalid':
        // The reason code only: never the token, nor claims nobody has verified.
        denied(req, res, 401, `OIDC token refused: ${outcome.reason}`);
        return void unauthorized(req, res, 'invalid_token', outcome.description, outcome.description);
      case 'no-role':
        denied(req, res, 403, 'OIDC token maps to no role', { id: outcome.id, ...outcome.identity });
        return void sendProblem(res, {
          problem: {
            type: problemType('insufficient-role'),
            title: 'Insufficient role',
            status: 403,
            detail: outcome.description,
            instance: instanceOf(req.originalUrl),
          },
        });
      case 'unavailable':
        denied(req, res, 503, 'OIDC key set unavailable');
        return void sendProblem(res, {
          problem: {
            type: problemType('identity-provider-unavailable'),
            title: 'Identity provider unavailable',
            status: 503,
            detail: outcome.description,
            instance: instanceOf(req.originalUrl),
          },
          headers: { 'Retry-After': String(outcome.retryAfterSeconds) },
        });
    }
  }
}
