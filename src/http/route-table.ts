// THE answer to "which operation of openapi.yaml does this request address?". It is computed
// once per request, by the first middleware after the request id, and everything after it reads
// that one answer: the metrics route label, access control (authentication, role, 404/405),
// the audit line. No other matcher decides: two matchers that disagree on a spelling
// (`/Topics/x`, `/topics/x/`, `/%74opics/x`) are how a viewer once deleted topics (issue 28):
// the role check's matcher saw no operation and let the request pass, express and the
// validator saw DELETE /topics/{topic}.
//
// The contract's spelling is the only one accepted, on the raw request target (never decoded
// before matching):
//  - origin-form only (`/...`); a target that is absolute-form or `*` matches nothing;
//  - a literal segment equals the template's bytes exactly: case-sensitive, no percent-encoding;
//  - no empty segment (`//`, a trailing `/`) and no dot segment (`.`, `..`): a proxy or client
//    that normalises them would address another resource than the one checked here;
//  - a parameter segment is non-empty RFC 3986 pchars, percent-decoded once (as express decodes
//    req.params); a malformed escape, or a value that decodes to `.` or `..`, matches nothing.
// Whatever matches nothing is 404 (route-not-found), after authentication (access-control.ts).
// A known path with a method the contract does not define is 405 with Allow. HEAD is GET's
// operation (express runs GET handlers for HEAD): it needs what GET needs.
//
// Compiled once into a trie of segments: a request costs one walk down the trie (a Map lookup
// per literal segment), never a regular expression per route.
import type { Request, RequestHandler, Response } from 'express';
import { accessTableFromSpec, type OperationAccess } from './auth/roles.js';
import { instanceOf } from './error-handler.js';
import { problemType, sendProblem } from './problem.js';

export type RouteMatch =
  /** `params`: the template's path parameters, percent-decoded once. */
  | { readonly kind: 'operation'; readonly operation: OperationAccess; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: 'method-not-allowed'; readonly route: string; readonly allow: readonly string[] }
  | { readonly kind: 'not-found' };

export type RouteRefusal = Exclude<RouteMatch, { kind: 'operation' }>;

/** The metrics label of requests that address no path of the contract. */
export const UNMATCHED_ROUTE = 'unmatched';

const NOT_FOUND: RouteMatch = Object.freeze({ kind: 'not-found' });

export interface RouteTable {
  /** `target` is the raw request target (req.url: path and query, not decoded). */
  match(method: string, target: string): RouteMatch;
}

interface PathItem {
  readonly route: string;
  readonly paramNames: readonly string[];
  readonly byMethod: Map<string, OperationAccess>;
  /** The contract's methods in the order they were declared, for the Allow header. */
  readonly allow: string[];
}

interface Node {
  readonly literals: Map<string, Node>;
  param: { readonly name: string; readonly node: Node } | undefined;
  item: PathItem | undefined;
}

const newNode = (): Node => ({ literals: new Map(), param: undefined, item: undefined });

/** RFC 3986 pchar minus pct-encoded: unreserved, sub-delims, ':' and '@'. */
const LITERAL = /^[A-Za-z0-9\-._~!$&'()*+,;=:@]+$/;
const PARAM = /^\{([A-Za-z_][A-Za-z0-9_.-]*)\}$/;

/** ASCII codes allowed in a raw parameter segment: pchar, plus '%' for escapes (checked by the decode). */
const PARAM_CHARS = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@%") PARAM_CHARS[c.charCodeAt(0)] = 1;

/** The parameter's value, or undefined when the raw segment is not one a parameter can take. */
function decodeParam(raw: string): string | undefined {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c >= 128 || PARAM_CHARS[c] === 0) return undefined;
  }
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    return undefined; // a malformed escape (`%zz`, `%`, a lone UTF-8 byte)
  }
  // `%2E%2E` is `..` to anyone who normalises escapes before dot segments (RFC 3986 6.2.2).
  return value === '.' || value === '..' || raw === '.' || raw === '..' ? undefined : value;
}

/** Template segments; throws for what this table cannot match exactly (better at startup than a wrong match). */
function templateSegments(route: string): { literal?: string; param?: string }[] {
  if (!route.startsWith('/')) throw new Error(`openapi.yaml: path ${route} does not start with /`);
  if (route === '/') return [];
  return route
    .slice(1)
    .split('/')
    .map((seg) => {
      const p = PARAM.exec(seg);
      if (p) return { param: p[1] };
      if (!LITERAL.test(seg) || seg === '.' || seg === '..') {
        throw new Error(`openapi.yaml: path ${route} has a segment the route table cannot match exactly: "${seg}"`);
      }
      return { literal: seg };
    });
}

/** Builds the table from the contract's operations (accessTableFromSpec(document).operations). */
export function compileRouteTable(operations: readonly OperationAccess[]): RouteTable {
  const root = newNode();
  let maxSegments = 0;
  for (const op of operations) {
    const segments = templateSegments(op.route);
    maxSegments = Math.max(maxSegments, segments.length);
    let node = root;
    const paramNames: string[] = [];
    for (const seg of segments) {
      if (seg.literal !== undefined) {
        let next = node.literals.get(seg.literal);
        if (!next) node.literals.set(seg.literal, (next = newNode()));
        node = next;
        continue;
      }
      const name = seg.param!;
      if (paramNames.includes(name)) throw new Error(`openapi.yaml: path ${op.route} names {${name}} twice`);
      // `/a/{x}` and `/a/{y}` are the same path to a caller (OpenAPI calls them identical).
      if (node.param && node.param.name !== name) {
        throw new Error(`openapi.yaml: path ${op.route} clashes with another path that names this segment {${node.param.name}}`);
      }
      node.param ??= { name, node: newNode() };
      paramNames.push(name);
      node = node.param.node;
    }
    node.item ??= { route: op.route, paramNames, byMethod: new Map(), allow: [] };
    if (node.item.route !== op.route) throw new Error(`openapi.yaml: paths ${node.item.route} and ${op.route} are the same path`);
    node.item.byMethod.set(op.method, op);
    node.item.allow.push(op.method);
  }

  /** Literal segments before parameters (OpenAPI: concrete paths match first), backtracking if the literal branch ends nowhere. */
  function walk(node: Node, segments: readonly string[], i: number, values: string[]): PathItem | undefined {
    if (i === segments.length) return node.item;
    const seg = segments[i];
    const literal = node.literals.get(seg);
    if (literal) {
      const found = walk(literal, segments, i + 1, values);
      if (found) return found;
    }
    if (!node.param) return undefined;
    const value = decodeParam(seg);
    if (value === undefined) return undefined;
    values.push(value);
    const found = walk(node.param.node, segments, i + 1, values);
    if (!found) values.pop();
    return found;
  }

  return {
    match(method, target) {
      if (target.charCodeAt(0) !== 0x2f) return NOT_FOUND; // not origin-form
      const q = target.indexOf('?');
      const path = q === -1 ? target : target.slice(0, q);
      const segments = path === '/' ? [] : path.slice(1).split('/');
      if (segments.length > maxSegments || segments.includes('')) return NOT_FOUND;
      const values: string[] = [];
      const item = walk(root, segments, 0, values);
      if (!item) return NOT_FOUND;
      const operation = item.byMethod.get(method) ?? (method === 'HEAD' ? item.byMethod.get('GET') : undefined);
      if (!operation) return { kind: 'method-not-allowed', route: item.route, allow: item.allow };
      const params: Record<string, string> = {};
      for (let k = 0; k < item.paramNames.length; k++) params[item.paramNames[k]] = values[k]!;
      return { kind: 'operation', operation, params };
    },
  };
}

const tables = new WeakMap<object, RouteTable>();

/** The table of a loaded spec's document, compiled on first use and kept (apps in one process share it). */
export function routeTableFor(document: { paths?: Record<string, Record<string, unknown>> }): RouteTable {
  let table = tables.get(document);
  if (!table) tables.set(document, (table = compileRouteTable(accessTableFromSpec(document).operations)));
  return table;
}

const LOCALS_KEY = 'routeMatch';

/** Mount first after the request id: stores the request's match for everything downstream. */
export function routeMatchMiddleware(table: RouteTable): RequestHandler {
  return (req, res, next) => {
    // req.url, not originalUrl: relative to this app if it is ever mounted under a prefix.
    res.locals[LOCALS_KEY] = table.match(req.method, req.url);
    next();
  };
}

/** The match stored by routeMatchMiddleware; not-found when it did not run (fail closed). */
export function routeMatchOf(res: Response): RouteMatch {
  const m = res.locals[LOCALS_KEY] as RouteMatch | undefined;
  return m ?? NOT_FOUND;
}

/** The OpenAPI path template of a match (405s included), for labels; UNMATCHED_ROUTE otherwise. */
export function routeLabel(match: RouteMatch): string {
  return match.kind === 'operation' ? match.operation.route : match.kind === 'method-not-allowed' ? match.route : UNMATCHED_ROUTE;
}

/** The 404 or 405 problem for a request that addresses no operation of the contract. */
export function sendRouteRefusal(req: Request, res: Response, refusal: RouteRefusal): void {
  const instance = instanceOf(req.originalUrl);
  if (refusal.kind === 'not-found') {
    const detail = `No route matches ${instance}.`;
    return sendProblem(res, { problem: { type: problemType('route-not-found'), title: 'Route not found', status: 404, detail, instance } });
  }
  sendProblem(res, {
    problem: {
      type: problemType('method-not-allowed'),
      title: 'Method not allowed',
      status: 405,
      detail: `${req.method} is not allowed on ${refusal.route}; allowed: ${refusal.allow.join(', ')}.`,
      instance,
    },
    headers: { Allow: refusal.allow.join(', ') },
  });
}
