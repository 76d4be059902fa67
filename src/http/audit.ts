// The audit trail: one log line for every change that reaches a route handler (every
// method other than GET/HEAD/OPTIONS that passed access control and validation),
// whatever its outcome - success, Kafka refusal, validateOnly, a crash, a client that
// hung up. It records who (the principal), what (operation, method, route template,
// path parameters, query, a redacted summary of the body), the request id, and what
// Kafka answered (HTTP status, Kafka error name/code, and per item for batches).
//
// The Kafka result is read from the response the gateway sends, not from the route
// code, so every route - including ones added later - is audited the same way.
// Credentials never enter the line: request headers are not logged at all, and body
// fields whose names look like secrets are replaced (see redactBody).
import type { Request, RequestHandler, Response } from 'express';
import { principalOf } from './auth/access-control.js';
import type { Principal } from './auth/roles.js';
import { instanceOf } from './error-handler.js';
import type { Logger } from '../observability/logger.js';
import { requestIdOf } from './request-id.js';
import { routeMatchOf } from './route-table.js';
import { noteResponseBody, responseBodyOf } from './response-body.js';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Field names whose values are never logged (topic configs like ssl.key.password, sasl.jaas.config, ...). */
const SECRET_NAME =
  /pass(word|wd)?|secret|token|credential|jaas|private|(^|[._-])key($|[._-])|keystore|truststore|authorization|api[._-]?key/i;

const MAX_DEPTH = 6;
const MAX_ARRAY_ITEMS = 20;
const MAX_KEYS = 50;
const MAX_STRING = 256;

export const REDACTED = '[REDACTED]';

/**
 * A bounded, redacted copy of a request body for the audit line: secret-looking fields
 * replaced, long strings cut, long arrays and objects summarised. Bounded so a 1 MB
 * body cannot become a 1 MB log line.
 */
export function redactBody(value: unknown, depth = 0): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}...(${value.length} chars)` : value;
  if (depth >= MAX_DEPTH) return Array.isArray(value) ? `[array of ${value.length}]` : '[object]';
  if (Array.isArray(value)) {
    const head = value.slice(0, MAX_ARRAY_ITEMS).map((v) => redactBody(v, depth + 1));
    return value.length > MAX_ARRAY_ITEMS ? [...head, `...(${value.length - MAX_ARRAY_ITEMS} more)`] : head;
  }
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    const entries = Object.entries(value as Record<string, unknown>);
    for (const [k, v] of entries.slice(0, MAX_KEYS)) out[k] = SECRET_NAME.test(k) ? REDACTED : redactBody(v, depth + 1);
    if (entries.length > MAX_KEYS) out['...'] = `${entries.length - MAX_KEYS} more keys`;
    return out;
  }
  // Left: undefined, bigint, symbol or a function (JSON.parse makes none of them): as String() writes them.
  if (typeof value === 'bigint' || typeof value === 'symbol' || typeof value === 'function') return value.toString();
  return 'undefined';
}

interface KafkaErrorRef {
  name: string;
  code: number;
}

interface AuditItem {
  name?: string;
  status?: number;
  kafkaError?: KafkaErrorRef;
}

export interface AuditResult {
  status: number;
  /** The problem type slug when the answer was an error. */
  problem?: string;
  kafkaError?: KafkaErrorRef;
  items?: AuditItem[];
}

function kafkaErrorOf(v: unknown): KafkaErrorRef | undefined {
  const k = (v as { kafkaError?: { name?: unknown; code?: unknown } } | null)?.kafkaError;
  return k && typeof k.name === 'string' && typeof k.code === 'number' ? { name: k.name, code: k.code } : undefined;
}

/** What the response says Kafka did: problem type, Kafka error, and per-item outcomes. */
export function resultOf(status: number, body: unknown): AuditResult {
  const result: AuditResult = { status };
  if (typeof body !== 'object' || body === null) return result;
  const b = body as { type?: unknown; items?: unknown };
  if (status >= 400 && typeof b.type === 'string') result.problem = b.type.slice(b.type.lastIndexOf('/') + 1);
  const kafkaError = kafkaErrorOf(body);
  if (kafkaError) result.kafkaError = kafkaError;
  if (Array.isArray(b.items)) {
    result.items = b.items.slice(0, 1000).map((raw): AuditItem => {
      const it = raw as { name?: unknown; status?: unknown; problem?: unknown };
      const item: AuditItem = {};
      if (typeof it.name === 'string') item.name = it.name;
      if (typeof it.status === 'number') item.status = it.status;
      const ke = kafkaErrorOf(it.problem);
      if (ke) item.kafkaError = ke;
      return item;
    });
  }
  return result;
}

/** Mount after validation and before the routes: only requests bound for a handler are audited. */
export function auditMiddleware(logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (READ_METHODS.has(req.method)) return next();
    const started = process.hrtime.bigint();
    // The body as it arrived, redacted and bounded now: a route may let go of a large body
    // once it has read it (POST /reassignments: 100,000 partitions are ~11 MiB of objects).
    const body = req.body === undefined ? null : redactBody(req.body);
    const json = res.json.bind(res);
    // Capture what is sent: that is the outcome the caller saw. By reference only: the line
    // reads a few members of it (resultOf), never serializes or copies it. Large answers are
    // sent by sendJson (src/http/json-slices.ts), which notes the body the same way.
    res.json = (b: unknown) => {
      noteResponseBody(res, b);
      return json(b);
    };
    let logged = false;
    const log = (aborted: boolean): void => {
      if (logged) return;
      logged = true;
      logger.info('audit', auditLine(req, res, body, responseBodyOf(res), aborted, Number(process.hrtime.bigint() - started) / 1e6));
    };
    res.once('finish', () => log(false));
    res.once('close', () => log(!res.writableFinished));
    next();
  };
}

/** Who: the caller name and role; for an OIDC caller also the verified subject, client and issuer. */
function principalForAudit(p: Principal): Record<string, unknown> {
  if (!p.oidc) return { id: p.id, role: p.role };
  const { subject, client, issuer } = p.oidc;
  return { id: p.id, role: p.role, subject, ...(client !== undefined && { client }), issuer };
}

function auditLine(
  req: Request,
  res: Response,
  body: unknown,
  responseBody: unknown,
  aborted: boolean,
  durationMs: number,
): Record<string, unknown> {
  // The route table's match: the same operation access control checked the role for.
  const match = routeMatchOf(res);
  const op = match.kind === 'operation' ? match : undefined;
  const principal = principalOf(res);
  const result = resultOf(res.statusCode, responseBody);
  return {
    type: 'audit',
    requestId: requestIdOf(res),
    principal: principal ? principalForAudit(principal) : null,
    operationId: op?.operation.operationId ?? null,
    method: req.method,
    route: op?.operation.route ?? null,
    path: instanceOf(req.originalUrl),
    params: op ? { ...op.params } : {},
    query: redactBody(req.query),
    body,
    outcome: aborted ? 'aborted' : res.statusCode === 207 ? 'partial' : res.statusCode < 300 ? 'success' : 'failure',
    result,
    durationMs: Math.round(durationMs * 10) / 10,
  };
}
