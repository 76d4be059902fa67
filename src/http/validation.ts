// Request (and, in tests, response) validation against openapi.yaml, and the
// translation of every "your request is wrong" error into a problem: validator errors,
// body-parser errors, unknown routes, wrong methods.
import type { RequestHandler } from 'express';
import { routeTableValidator, type MatchOf } from './validator-chain.js';
import type { LoadedSpec } from './spec.js';
import { problemType, type HttpProblem, type ValidationError } from './problem.js';

/**
 * express-openapi-validator's request (and response) validation, keyed by the route table's match
 * when `matchOf` is route-table.ts's routeMatchOf (validator-chain.ts; mount after
 * routeMatchMiddleware); without it, matched by the validator itself.
 */
export function validationMiddleware(spec: LoadedSpec, validateResponses: boolean, matchOf?: MatchOf): RequestHandler[] {
  const hit = sharedValidators?.find((v) => v.spec === spec && v.validateResponses === validateResponses && v.matchOf === matchOf);
  if (hit) return hit.handlers;
  const handlers = routeTableValidator(
    {
      // The validator dereferences in place; give it a copy so /openapi.yaml and the
      // route matcher keep the document as written.
      apiSpec: structuredClone(spec.document),
      // Fail at startup, not at the first request, if openapi.yaml is not valid OpenAPI 3.1.
      validateApiSpec: true,
      validateRequests: {
        // Report every violation, not the first: a 400 should let the caller fix the
        // request in one go. Safe here: the schemas are ours and bodies are size-limited.
        allErrors: true,
        // Never strip unknown fields silently: additionalProperties:false must reject.
        removeAdditional: false,
      },
      validateResponses: validateResponses ? { allErrors: true } : false,
      validateFormats: true,
      // openapi.yaml's `security` documents the schemes; src/http/auth/access-control.ts
      // enforces them (and x-required-role) before the body is read. The validator's
      // own check would 401 the demo's anonymous callers.
      validateSecurity: false,
      ignoreUndocumented: false,
    },
    matchOf,
  );
  sharedValidators?.push({ spec, validateResponses, matchOf, handlers });
  return handlers;
}

/** Validators built so far, when shared (shareValidatorsAcrossApps); undefined otherwise (every app builds its own). */
let sharedValidators:
  { spec: LoadedSpec; validateResponses: boolean; matchOf: MatchOf | undefined; handlers: RequestHandler[] }[] | undefined;

/**
 * TEST ONLY (test/chaos/shared-validator.ts): from now on, an app built with the same spec and
 * options gets the validator built first instead of its own. Building one loads, checks and
 * compiles openapi.yaml: ~150-200 ms of CPU per app, most of a chaos run's CPU when each run
 * starts two to four instances. What is shared holds only the spec and compiled validators; its one
 * app-bound step, the validator's app.param handlers for path parameters (installed on the app of
 * its first request), is a type coercion the gateway's string ids do not need, and the route
 * table's match sets req.params itself (validator-chain.ts). Never called by the gateway.
 */
export function shareValidatorsAcrossApps(): void {
  sharedValidators ??= [];
}

/** The shape express-openapi-validator's HttpError and body-parser's errors share enough of. */
interface StatusError {
  status?: number;
  statusCode?: number;
  type?: string; // body-parser: 'entity.too.large', 'entity.parse.failed', ...
  message?: string;
  path?: string;
  headers?: Record<string, string>;
  errors?: { path?: string; message?: string; errorCode?: string }[];
}

function asStatusError(err: unknown): StatusError | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as StatusError;
  const status = e.status ?? e.statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? e : undefined;
}

/**
 * Ajv reports a failed oneOf three ways at once: the "must match exactly one schema"
 * umbrella, the type mismatch of the branch the value was never meant for, and the
 * real problem inside the intended branch. Keep the real problems; fall back to all
 * errors if filtering would leave none.
 */
function usefulErrors(errors: NonNullable<StatusError['errors']>): ValidationError[] {
  // A `false` subschema (dependentSchemas in NewTopic) reads "boolean schema is false" in ajv.
  const message = (m: string | undefined): string =>
    m === 'boolean schema is false' ? 'must not be combined with the other fields given' : (m ?? 'invalid');
  const all = errors.map((e) => ({ path: e.path ?? '', message: message(e.message) }));
  const noise = (e: NonNullable<StatusError['errors']>[number]): boolean =>
    e.errorCode === 'oneOf.openapi.validation' || (e.errorCode === 'type.openapi.validation' && /^\/body\/?$/.test(e.path ?? ''));
  const filtered = errors.filter((e) => !noise(e)).map((e) => ({ path: e.path ?? '', message: message(e.message) }));
  // Dedupe: ajv repeats identical messages across oneOf branches.
  const seen = new Set<string>();
  return (filtered.length > 0 ? filtered : all).filter((e) => {
    const key = `${e.path}\u0000${e.message}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

/** Translates client-side HTTP errors into problems; undefined for anything else (a 500). */
export function requestErrorToProblem(err: unknown, instance: string): HttpProblem | undefined {
  const e = asStatusError(err);
  if (!e) return undefined;
  const status = (e.status ?? e.statusCode)!;

  // body-parser errors carry a `type`; map them before the generic status switch.
  if (e.type === 'entity.too.large') {
    return {
      problem: {
        type: problemType('payload-too-large'),
        title: 'Payload too large',
        status: 413,
        detail: 'The request body exceeds the size limit.',
        instance,
      },
    };
  }
  if (e.type === 'entity.parse.failed') {
    return {
      problem: {
        type: problemType('malformed-json'),
        title: 'Malformed JSON',
        status: 400,
        detail: e.message ?? 'The body is not valid JSON.',
        instance,
      },
    };
  }
  if (e.type === 'charset.unsupported' || e.type === 'encoding.unsupported') {
    return {
      problem: {
        type: problemType('unsupported-media-type'),
        title: 'Unsupported media type',
        status: 415,
        detail: e.message ?? 'Unsupported body encoding.',
        instance,
      },
    };
  }

  switch (status) {
    case 400:
      return {
        problem: {
          type: problemType('validation-failed'),
          title: 'Request validation failed',
          status,
          detail: 'The request does not match the API schema; see errors.',
          instance,
          errors: usefulErrors(e.errors ?? [{ path: e.path, message: e.message }]),
        },
      };
    case 404:
      return {
        problem: {
          type: problemType('route-not-found'),
          title: 'Route not found',
          status,
          detail: `No route matches ${instance}.`,
          instance,
        },
      };
    case 405:
      return {
        problem: {
          type: problemType('method-not-allowed'),
          title: 'Method not allowed',
          status,
          detail: e.message ?? 'Method not allowed.',
          instance,
        },
        ...(e.headers?.Allow && { headers: { Allow: e.headers.Allow } }),
      };
    case 413:
      return {
        problem: {
          type: problemType('payload-too-large'),
          title: 'Payload too large',
          status,
          detail: e.message ?? 'The request body is too large.',
          instance,
        },
      };
    case 415:
      return {
        problem: {
          type: problemType('unsupported-media-type'),
          title: 'Unsupported media type',
          status,
          detail: 'Send the body as application/json.',
          instance,
        },
      };
    default:
      // Other 4xx from the validator (e.g. 406) keep their status under a generic type.
      if (status < 500) {
        return {
          problem: { type: problemType('bad-request'), title: 'Bad request', status, detail: e.message ?? 'Bad request.', instance },
        };
      }
      return undefined;
  }
}
