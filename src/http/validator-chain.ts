// express-openapi-validator's middlewares, driven by the route table's match (issue 32).
//
// The validator's own chain costs every request, before a byte of validation: a promise hop per
// middleware (five), and a `lookupRoute` that builds a path-to-regexp regular expression for each
// route of openapi.yaml it tries until one matches (11 % + 4.4 % of a /healthz in a CPU profile).
// The route table (route-table.ts) has already answered "which operation?" for this request, and
// everything else (metrics, access control, the audit line) reads that answer. Here the
// validator's pieces are assembled again, once its spec is loaded:
//   - the metadata (req.openapi, req.params) is taken from the route table's match, by a Map
//     lookup: the same expressRoute, openApiRoute, schema and (in tests) response schema the
//     validator's lookup finds, the same percent-decoded path parameters;
//   - the validator's own request validator (its ajv code, its error objects, its caches) runs as
//     before, except for requests that provably pass it, asked without a query string: those of
//     operations with no parameters and no request body (the one thing such an operation refuses
//     is a query parameter, and a request with one goes through the validator), and those of
//     operations whose only parameters are path parameters with plain string schemas
//     (type, pattern, length: GET /topics/{topic}), when the path parameters' values pass the
//     same checks here (a value that does not goes through the validator, which answers the
//     400); the first request of each operation goes through it even so (it builds the
//     operation's middleware);
//   - the response validator (tests only) runs as before, on every operation;
//   - all of it synchronously once the spec is loaded (before: a promise per middleware).
// Whatever this cannot key (no match in res.locals, as in the warm-up's requests; a method with
// no operation of its own, such as HEAD on a GET) goes through the validator's own lookup, so the
// answer is the validator's in every case. validation.ts builds it; test/http/validator-chain.test.ts
// and the HTTP tests hold it to the validator's answers.
import { createRequire } from 'node:module';
import type { Application, NextFunction, Request, RequestHandler, Response } from 'express';

const require = createRequire(import.meta.url);

/** The validator version whose internals (below) this was written against; test/http/validator-chain.test.ts checks it. */
export const ADAPTED_VALIDATOR_VERSION = '5.6.2';

interface Operation {
  parameters?: unknown[];
  requestBody?: unknown;
}
interface Parameter {
  in?: unknown;
  name?: unknown;
  schema?: unknown;
}
interface ApiDoc {
  paths: Record<string, Record<string, unknown> & { parameters?: unknown[] }>;
}
interface Route {
  basePath: string;
  expressRoute: string;
  openApiRoute: string;
  method: string;
}
interface Spec {
  apiDoc: ApiDoc;
  basePaths: string[];
  routes: Route[];
  serial: number;
}
interface Context {
  apiDoc: ApiDoc;
  basePaths: string[];
  routes: Route[];
  serial: number;
}
/** The parts of express-openapi-validator's OpenApiValidator used here (private in its typings). */
interface ValidatorInternals {
  options: {
    validateRequests: unknown;
    validateResponses: unknown;
    validateSecurity: unknown;
    ignorePaths?: unknown;
    ignoreUndocumented?: boolean;
    useRequestUrl?: boolean;
    $refParser?: unknown;
  };
  ajvOpts: { preprocessor: unknown };
  installPathParams(app: Application, context: Context): void;
  metadataMiddleware(context: Context, responseApiDoc: ApiDoc | undefined): RequestHandler;
  requestValidationMiddleware(apiDoc: ApiDoc): RequestHandler;
  responseValidationMiddleware(apiDoc: ApiDoc, serial: number): RequestHandler;
  multipartMiddleware(apiDoc: ApiDoc): RequestHandler;
}

const { OpenApiValidator } = require('express-openapi-validator/dist/openapi.validator.js') as {
  OpenApiValidator: new (options: object) => ValidatorInternals;
};
const { OpenApiSpecLoader } = require('express-openapi-validator/dist/framework/openapi.spec.loader.js') as {
  OpenApiSpecLoader: new (opts: { apiDoc: unknown; validateApiSpec: boolean; $refParser: unknown }) => { load(): Promise<Spec> };
};
const { OpenApiContext } = require('express-openapi-validator/dist/framework/openapi.context.js') as {
  OpenApiContext: new (spec: Spec, ignorePaths: unknown, ignoreUndocumented?: boolean, useRequestUrl?: boolean) => Context;
};
const { SchemaPreprocessor } = require('express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js') as {
  SchemaPreprocessor: new (apiDoc: ApiDoc, ajvOpts: unknown, resOpts: unknown) => { preProcess(): { apiDocRes: ApiDoc | undefined } };
};

/** What the validator's lookupRoute answers for one (method, OpenAPI route). */
interface Metadata {
  readonly expressRoute: string;
  readonly openApiRoute: string;
  readonly schema: Operation;
  readonly responseSchema: unknown;
  /** No parameters and no request body: a request without a query string passes the request validator whatever it holds. */
  readonly acceptsAnyWithoutQuery: boolean;
  /**
   * Only path parameters to check, no request body: whether a
   * request without a query string whose path parameters have these values passes the request
   * validator. Undefined when the operation has anything else to check.
   */
  readonly pathParamsPass: ((params: Readonly<Record<string, string>>) => boolean) | undefined;
  /**
   * Whether a request of this operation has been through the request validator. The first one
   * always is: it builds the validator's middleware for the operation, at the warm-up or at the
   * first request as before (test/http/validation-warm-up.test.ts counts those builds).
   */
  validated: boolean;
}

interface Chain {
  readonly context: Context;
  readonly fallback: RequestHandler[];
  readonly metadata: ReadonlyMap<string, Metadata>;
  /** The validator's multipart step, only when some operation takes multipart bodies (none does today). */
  readonly multipart: RequestHandler | undefined;
  readonly request: RequestHandler | undefined;
  readonly response: RequestHandler | undefined;
}

/**
 * The route table's match of a request (route-table.ts's routeMatchOf fits). Passed in, not
 * imported: route-table.ts imports error-handler.ts, which imports validation.ts, which builds this.
 */
export type MatchOf = (
  res: Response,
) =>
  | { readonly kind: 'operation'; readonly operation: { readonly route: string }; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: 'method-not-allowed' | 'not-found' };

/** Whether a requestBody declares content (the validator's preprocessor leaves an empty one on every operation). */
const hasContent = (requestBody: unknown): boolean =>
  typeof requestBody === 'object' && requestBody !== null && Object.hasOwn(requestBody, 'content');

/** Schema keys that change nothing about which strings a string schema accepts. */
const ANNOTATIONS = new Set(['description', 'example', 'examples', 'title', 'deprecated']);

/** `value` with a local $ref (`#/...`) followed in `doc`; undefined for any other $ref. */
function resolved(doc: unknown, value: unknown): unknown {
  for (let hops = 0; hops < 16; hops++) {
    const ref = (value as { $ref?: unknown } | null)?.$ref;
    if (typeof ref !== 'string') return value;
    if (!ref.startsWith('#/')) return undefined;
    value = ref
      .slice(2)
      .split('/')
      .reduce<unknown>(
        (node, key) => (node as Record<string, unknown> | undefined)?.[key.replaceAll('~1', '/').replaceAll('~0', '~')],
        doc,
      );
  }
  return undefined;
}

/**
 * The strings a plain string schema (type string, pattern, minLength, maxLength and annotations
 * only) accepts, as ajv checks them (a pattern is a `u` RegExp, lengths count code points);
 * undefined for any other schema.
 */
function stringSchemaCheck(schema: unknown): ((value: string) => boolean) | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const s = schema as { type?: unknown; pattern?: unknown; minLength?: unknown; maxLength?: unknown };
  if (s.type !== 'string') return undefined;
  for (const key of Object.keys(s))
    if (key !== 'type' && key !== 'pattern' && key !== 'minLength' && key !== 'maxLength' && !ANNOTATIONS.has(key)) return undefined;
  if (s.pattern !== undefined && typeof s.pattern !== 'string') return undefined;
  if ((s.minLength !== undefined && !Number.isInteger(s.minLength)) || (s.maxLength !== undefined && !Number.isInteger(s.maxLength)))
    return undefined;
  const pattern = s.pattern === undefined ? undefined : new RegExp(s.pattern, 'u');
  const min = (s.minLength as number | undefined) ?? 0;
  const max = (s.maxLength as number | undefined) ?? Infinity;
  return (value) => {
    if (pattern && !pattern.test(value)) return false;
    if (min === 0 && max === Infinity) return true;
    const length = [...value].length;
    return length >= min && length <= max;
  };
}

/** Operation metadata's pathParamsPass (see there), built from the operation's parameters as declared. */
function pathParamsCheck(doc: unknown, declared: readonly unknown[], schema: Operation): Metadata['pathParamsPass'] {
  if (hasContent(schema.requestBody)) return undefined;
  const checks: [string, (value: string) => boolean][] = [];
  for (const raw of declared) {
    const p = resolved(doc, raw) as Parameter | undefined;
    if (typeof p !== 'object' || p === null) return undefined;
    // Any other parameter does something even when absent (a required one is refused, an optional
    // one's default is filled in): the validator's job.
    if (p.in !== 'path' || typeof p.name !== 'string') return undefined;
    const check = stringSchemaCheck(resolved(doc, p.schema));
    if (!check) return undefined;
    checks.push([p.name, check]);
  }
  if (checks.length === 0) return undefined;
  return (params) => {
    for (const [name, check] of checks) {
      const value = params[name];
      if (value === undefined || !check(value)) return false;
    }
    return true;
  };
}

/** Requests the validator's own route lookup answered (not the route table): for tests and the profile. */
export const validatorLookups = { count: 0 };

/** Runs `mw`, handing a thrown error to `next` (the validator's own chain did so through its promise). */
function run(mw: RequestHandler, req: Request, res: Response, next: NextFunction): void {
  try {
    const r = mw(req, res, next);
    if (r instanceof Promise) r.catch(next);
  } catch (err) {
    next(err);
  }
}

/**
 * The validator's middlewares as one, with the options express-openapi-validator's
 * `middleware(options)` takes (`options.apiSpec`: a document it may change; give it a copy).
 * Without `matchOf`, every request goes through the validator's own lookup, as before.
 */
export function routeTableValidator(
  options: {
    apiSpec: object;
    validateApiSpec: boolean;
    validateRequests: object;
    validateResponses: object | false;
    validateSecurity: false;
  } & Record<string, unknown>,
  matchOf: MatchOf | undefined,
): RequestHandler[] {
  const oav = new OpenApiValidator(options);
  const spec = new OpenApiSpecLoader({
    apiDoc: options.apiSpec,
    validateApiSpec: options.validateApiSpec,
    $refParser: oav.options.$refParser,
  }).load();
  let pathParamsInstalled = false;
  let chain: Chain | undefined;
  let failed: unknown;
  const ready = spec.then(
    (loaded) => {
      // As the validator's installMiddleware prepares its context (express-openapi-validator 5.6.2).
      const responseApiDoc = new SchemaPreprocessor(loaded.apiDoc, oav.ajvOpts.preprocessor, oav.options.validateResponses).preProcess()
        .apiDocRes;
      const context = new OpenApiContext(loaded, oav.options.ignorePaths, oav.options.ignoreUndocumented, oav.options.useRequestUrl);
      const original = oav.metadataMiddleware(context, responseApiDoc);
      const fallbackMetadata: RequestHandler = (req, res, next) => {
        validatorLookups.count++;
        return original(req, res, next);
      };
      const multipart = JSON.stringify(context.apiDoc.paths).includes('multipart/') ? oav.multipartMiddleware(context.apiDoc) : undefined;
      const request = oav.options.validateRequests ? oav.requestValidationMiddleware(context.apiDoc) : undefined;
      const response = oav.options.validateResponses ? oav.responseValidationMiddleware(responseApiDoc!, context.serial) : undefined;
      const metadata = new Map<string, Metadata>();
      // A base path other than the root would make the route table's templates differ from the validator's keys.
      if (context.basePaths.every((b) => b === '' || b === '/')) {
        for (const route of context.routes) {
          const method = route.method.toLowerCase();
          const item = context.apiDoc.paths[route.openApiRoute];
          const schema = item[method] as Operation;
          metadata.set(`${route.method} ${route.openApiRoute}`, {
            expressRoute: route.expressRoute,
            openApiRoute: route.openApiRoute,
            schema,
            responseSchema: responseApiDoc?.paths[route.openApiRoute]?.[method],
            // (The validator's body parser constrains a body only when requestBody has `content`;
            // its preprocessor leaves a requestBody key, empty, on every operation.)
            acceptsAnyWithoutQuery: !(schema.parameters?.length || item.parameters?.length) && !hasContent(schema.requestBody),
            pathParamsPass: pathParamsCheck(context.apiDoc, [...(item.parameters ?? []), ...(schema.parameters ?? [])], schema),
            validated: false,
          });
        }
      }
      // (The validator's security step is left out: validateSecurity is false, it only calls next.)
      const fallback = [fallbackMetadata, multipart, request, response].filter((mw): mw is RequestHandler => mw !== undefined);
      chain = { context, metadata, multipart, request, response, fallback };
    },
    (err: unknown) => {
      failed = err;
    },
  );

  function validate(c: Chain, req: Request, res: Response, next: NextFunction): void {
    if (!pathParamsInstalled) {
      // The validator's first middleware: its app.param handlers, on the app of the first request.
      oav.installPathParams(req.app, c.context);
      pathParamsInstalled = true;
    }
    const match = matchOf && res.locals ? matchOf(res) : undefined;
    const meta = match?.kind === 'operation' ? c.metadata.get(`${req.method} ${match.operation.route}`) : undefined;
    if (!meta || !match || match.kind !== 'operation') return runAll(c.fallback, req, res, next);
    const pathParams = { ...match.params };
    const openapi: Record<string, unknown> = {
      expressRoute: meta.expressRoute,
      openApiRoute: meta.openApiRoute,
      pathParams,
      schema: meta.schema,
      serial: c.context.serial,
    };
    if (c.response) openapi._responseSchema = meta.responseSchema;
    (req as Request & { openapi: unknown }).openapi = openapi;
    req.params = pathParams;
    const steps: RequestHandler[] = [];
    if (c.multipart) steps.push(c.multipart);
    const passes =
      meta.validated && !req.url.includes('?') && (meta.acceptsAnyWithoutQuery || (meta.pathParamsPass?.(pathParams) ?? false));
    if (c.request && !passes) {
      meta.validated = true;
      steps.push(c.request);
    }
    if (c.response) steps.push(c.response);
    runAll(steps, req, res, next);
  }

  /** The steps in order, each synchronously after the last; the first error goes to `next`. */
  function runAll(steps: readonly RequestHandler[], req: Request, res: Response, next: NextFunction): void {
    let i = 0;
    const step = (err?: unknown): void => {
      if (err !== undefined && err !== null) return next(err);
      const mw = steps[i++];
      if (!mw) return next();
      run(mw, req, res, step);
    };
    step();
  }

  return [
    function openApiValidation(req, res, next) {
      if (chain) return validate(chain, req, res, next);
      ready.then(() => (failed === undefined ? validate(chain!, req, res, next) : next(failed)), next);
    },
  ];
}
