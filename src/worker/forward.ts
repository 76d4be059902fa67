// The HTTP thread's forwarder: requests for the reassignment side (reassignments, throttles,
// plans and broker loads, webhooks, leader elections) go, unparsed, to the worker thread's app
// on a port stream; its answer comes back byte for byte. Mounted after the request id, the
// route match and the HTTP metrics (so those stay the HTTP thread's) and before access control
// and the body parsers: the worker's app authenticates, validates and answers as the
// in-process app does, so statuses, problems and headers are the same by construction.
// `keepHere` leaves some of those requests to this thread's own routes, which forward what they
// cannot answer: GET /reassignments/{id} is answered from the worker's posts when they are fresh
// (summary-answers.ts).
import { request, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Request, RequestHandler, Response } from 'express';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../http/errors.js';
import { problemType, sendProblem } from '../http/problem.js';
import { REQUEST_ID_HEADER, requestIdOf } from '../http/request-id.js';
import { instance } from '../http/routes/shared.js';
import type { Logger } from '../observability/logger.js';
import type { PeerCertificate } from './protocol.js';
import type { WorkerSupervisor } from './supervisor.js';

/** Paths the worker answers: the reassignment runtime's routes (src/http/app.ts mounts them with it). */
const WORKER_PATHS = /^\/(?:reassignments(?:\/.*)?|throttles(?:\/.*)?|plans|brokers|webhooks(?:\/.*)?|leaders\/elections)$/;

export function isWorkerPath(path: string): boolean {
  return WORKER_PATHS.test(path);
}

/** Headers of one connection only (RFC 9110 7.6.1): each side frames its own. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

function answerHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

function peerCertificateOf(req: Request): PeerCertificate | undefined {
  const socket = req.socket as Partial<TLSSocket>;
  if (socket.authorized !== true || typeof socket.getPeerCertificate !== 'function') return undefined;
  const cert = socket.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) return undefined;
  return {
    subject: { ...cert.subject } as Record<string, string | string[]>,
    subjectaltname: cert.subjectaltname,
    fingerprint256: cert.fingerprint256,
  };
}

function sendUnavailable(req: Request, res: Response, detail: string): void {
  sendProblem(res, {
    problem: {
      type: problemType('reassignment-worker-unavailable'),
      title: 'Reassignment worker unavailable',
      status: 503,
      detail,
      instance: instance(req),
    },
    headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
  });
}

/**
 * `onWrite`: called when the worker answers a forwarded request that may change the cluster (any
 * method but GET and HEAD), before the client gets the answer: this thread's recent reads (a
 * topic's description) are not answered again after it (src/services/index.ts writesElsewhere).
 */
export function forwardToWorker(
  supervisor: WorkerSupervisor,
  logger: Logger,
  opts: {
    onWrite?: () => void;
    /** Requests of the worker's paths that this thread's own routes take (they forward what they cannot answer). */
    keepHere?: (req: Request, res: Response) => boolean;
  } = {},
): RequestHandler {
  const { onWrite, keepHere } = opts;
  return (req, res, next) => {
    if (!isWorkerPath(req.path) || keepHere?.(req, res)) return next();
    const reason = supervisor.unavailableReason();
    if (reason !== null) return sendUnavailable(req, res, `${reason}; try again shortly. Nothing was changed.`);
    const headers: OutgoingHttpHeaders = { ...req.headers };
    for (const h of HOP_BY_HOP) if (h !== 'transfer-encoding') delete headers[h];
    // One exchange per stream: the worker's server ends it after the answer.
    headers.connection = 'close';
    // The same request id in both threads' log lines.
    const id = requestIdOf(res);
    if (id) headers[REQUEST_ID_HEADER.toLowerCase()] = id;
    const peer = { remoteAddress: req.socket.remoteAddress, peerCertificate: peerCertificateOf(req) };
    let stream: ReturnType<WorkerSupervisor['openStream']>;
    try {
      stream = supervisor.openStream(peer);
    } catch (err) {
      return sendUnavailable(req, res, `${err instanceof Error ? err.message : String(err)}; try again shortly. Nothing was changed.`);
    }
    const upstream = request({ method: req.method, path: req.originalUrl, headers, createConnection: () => stream });
    upstream.on('response', (answer) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') onWrite?.();
      // An event stream: what the worker's route did to its (port) socket, done to the real one.
      if (answer.headers['content-type']?.startsWith('text/event-stream')) {
        req.socket.setTimeout(0);
        req.socket.setNoDelay(true);
      }
      res.writeHead(answer.statusCode ?? 502, answerHeaders(answer.headers));
      answer.pipe(res);
      // The worker ended in the middle of the answer: the client sees the connection end.
      answer.on('error', () => res.destroy());
      answer.on('aborted', () => res.destroy());
    });
    upstream.on('error', (err) => {
      if (res.headersSent) return void res.destroy();
      logger.warn('forwarded request failed: the reassignment worker thread ended before answering', {
        requestId: id,
        method: req.method,
        path: req.path,
        err: err.message,
      });
      // A change may have been made before the worker ended: say so, as the shutdown's 503 does.
      sendUnavailable(
        req,
        res,
        `The reassignment worker thread ended before answering (${err.message}); it is being restarted. The request may or may not have taken effect: check before retrying.`,
      );
    });
    // The client went (an event stream closed, a request abandoned): the worker's side ends too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  };
}
