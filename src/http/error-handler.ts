// The last middleware: every error ends here and leaves as application/problem+json.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { serviceFailureOf } from '../services/errors.js';
import { mapKafkaRequestError, UNAVAILABLE_RETRY_AFTER_SECONDS } from './errors.js';
import type { Logger } from '../observability/logger.js';
import { problemType, sendProblem } from './problem.js';
import { requestErrorToProblem } from './validation.js';

/** Path without the query string: `instance` identifies the resource, not the call's options. */
export function instanceOf(originalUrl: string): string {
  const q = originalUrl.indexOf('?');
  return q === -1 ? originalUrl : originalUrl.slice(0, q);
}

/**
 * The end of the stack: an operation of the contract that this app does not serve (/reassignments
 * without the reassignment runtime). Paths the contract does not have never get here: access
 * control answers them (src/http/route-table.ts).
 */
export const notFoundHandler: RequestHandler = (req, res) => {
  const instance = instanceOf(req.originalUrl);
  sendProblem(res, {
    problem: {
      type: problemType('route-not-found'),
      title: 'Route not found',
      status: 404,
      detail: `No route matches ${instance}.`,
      instance,
    },
  });
};

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    // Express's rule: once headers are out, only its default handler can end the socket.
    if (res.headersSent) return next(err);
    const instance = instanceOf(req.originalUrl);

    const failure = serviceFailureOf(err);
    if (failure?.kind === 'state-topic-missing') {
      // Loud on purpose: the gateway refuses to act on state it no longer has.
      return sendProblem(res, {
        problem: { type: problemType('state-topic-missing'), title: 'State topic missing', status: 503, detail: failure.message, instance },
        headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
      });
    }
    if (failure?.kind === 'state-busy') {
      // Another operation (maybe another instance) holds what this one must change, or took it
      // over meanwhile: nothing was changed; the same request later is safe.
      const retryAfter = failure.retryAfterSeconds ?? UNAVAILABLE_RETRY_AFTER_SECONDS;
      return sendProblem(res, {
        problem: {
          type: problemType('state-busy'),
          title: 'Busy: held by another operation',
          status: 503,
          detail: failure.message,
          instance,
        },
        headers: { 'Retry-After': String(retryAfter) },
      });
    }
    if (failure?.kind === 'kafka') {
      const { kind, kafka } = failure.failure;
      const mapped = mapKafkaRequestError(failure.failure, instance);
      if (mapped.problem.status >= 500) {
        logger.warn('kafka request failed', { instance, kind, kafkaError: kafka.name, code: kafka.code, detail: kafka.message });
      }
      return sendProblem(res, mapped);
    }

    const client = requestErrorToProblem(err, instance);
    if (client) return sendProblem(res, client);

    // A 500 from the validator means a response did not match openapi.yaml (only with
    // validateResponses): surface the violations, they are the bug report.
    const validatorErrors = (err as { errors?: { path?: string; message?: string }[] } | null)?.errors;
    logger.error('unhandled error', {
      instance,
      err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err),
      validatorErrors,
    });
    sendProblem(res, {
      problem: {
        type: problemType('internal-error'),
        title: 'Internal server error',
        status: 500,
        detail: validatorErrors ? 'The response did not match the API schema.' : 'An unexpected error occurred.',
        instance,
        ...(validatorErrors && { errors: validatorErrors.map((e) => ({ path: e.path ?? '', message: e.message ?? '' })) }),
      },
    });
  };
}
