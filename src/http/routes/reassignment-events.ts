// GET /reassignments/events and GET /reassignments/{id}/events: Server-Sent Events. What a
// stream is sent, and when, is the hub's (src/events/sse-hub.ts); this file maps its outcomes
// to HTTP: the stream's headers, the 404 and 503 problems, the end of the stream when the
// client goes, and the metrics of open and refused streams.
//
// Nothing between the handler and the socket buffers: the app has no compression middleware
// (a gzip stream would hold frames back until its buffer fills), the response validator only
// hooks res.json (frames go through res.write), and `X-Accel-Buffering: no` asks nginx-style
// proxies not to buffer either.
import type { Request, Response, Router } from 'express';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ReassignmentChangeFeed } from '../../events/reassignment-changes.js';
import { DEFAULT_STREAM_CONFIG, type StreamConfig } from '../../events/sse-config.js';
import { ReassignmentStreamHub, summarySourceOf, type StreamSink } from '../../events/sse-hub.js';
import { METRIC_PREFIX } from '../metrics.js';
import { problemType, sendProblem } from '../problem.js';
import { strictRouter } from '../router.js';
import { toReassignment } from './reassignments.js';
import { instance, param } from './shared.js';

/** Seconds a refused client waits before it tries again. */
const RETRY_AFTER_SECONDS = 5;

export interface EventRoutesOptions {
  /** The state store and the reassignment service the hub reads (the runtime's). */
  runtime: Parameters<typeof summarySourceOf>[0];
  /** The change feed (ids, Last-Event-ID replay); without it, changes are found by the progress tick. */
  changes?: ReassignmentChangeFeed | undefined;
  registry: Registry;
  config?: StreamConfig | undefined;
  /** True while the server drains: every stream is ended (within a progress interval). */
  draining: () => boolean;
}

/** The summary a stream carries: GET /reassignments/{id}'s answer without the rollback file. */
function streamSummary(...args: Parameters<typeof toReassignment>): unknown {
  const { rollback: _rollback, ...summary } = toReassignment(...args);
  return summary;
}

export function createStreamHub(opts: Omit<EventRoutesOptions, 'registry'>): ReassignmentStreamHub {
  const config = opts.config ?? DEFAULT_STREAM_CONFIG;
  return new ReassignmentStreamHub({
    source: summarySourceOf(opts.runtime),
    feed: opts.changes,
    render: (d) => streamSummary(d, false),
    ...config,
    closing: opts.draining,
  });
}

export function reassignmentEventRoutes(opts: EventRoutesOptions & { hub?: ReassignmentStreamHub }): Router {
  const { registry } = opts;
  const hub = opts.hub ?? createStreamHub(opts);
  const router = strictRouter();
  new Gauge({
    name: `${METRIC_PREFIX}event_streams_open`,
    help: 'Server-Sent Events streams open now (GET /reassignments/events, /reassignments/{id}/events).',
    registers: [registry],
    collect() {
      this.set(hub.openCount);
    },
  });
  const refused = new Counter({
    name: `${METRIC_PREFIX}event_streams_refused_total`,
    help: 'Event streams refused because SSE_MAX_STREAMS were open.',
    registers: [registry],
  });
  let droppedSeen = 0;
  new Counter({
    name: `${METRIC_PREFIX}event_streams_dropped_total`,
    help: 'Event streams the gateway ended because the client did not read (over 1 MiB unread); the client reconnects with Last-Event-ID.',
    registers: [registry],
    collect() {
      if (hub.dropped > droppedSeen) this.inc(hub.dropped - droppedSeen);
      droppedSeen = hub.dropped;
    },
  });

  const follow = (scope: (req: Request) => string | null) => async (req: Request, res: Response) => {
    const id = scope(req);
    if (req.method === 'HEAD') {
      res.status(200).type('text/event-stream').end();
      return;
    }
    const lastEventId = req.get('last-event-id') ?? null;
    const sink: StreamSink = {
      write(frame) {
        if (!res.headersSent) {
          res.writeHead(200, {
            'Content-Type': 'text/event-stream; charset=utf-8',
            // no-transform: a proxy must not compress or rewrite it either.
            'Cache-Control': 'no-cache, no-transform',
            'X-Accel-Buffering': 'no',
          });
        }
        res.write(frame);
      },
      buffered: () => res.writableLength,
      end: () => res.end(),
    };
    // A stream never times out on the server's side; frames go out as written.
    req.socket.setTimeout(0);
    req.socket.setNoDelay(true);
    const opened = await hub.open(id, lastEventId, sink);
    if (opened.kind === 'not-found') {
      return sendProblem(res, {
        problem: {
          type: problemType('reassignment-not-found'),
          title: 'Reassignment not found',
          status: 404,
          detail: `No reassignment with id ${id} (finished ones are kept for REASSIGNMENT_RETENTION_SECONDS).`,
          instance: instance(req),
        },
      });
    }
    if (opened.kind === 'limit') {
      refused.inc();
      return sendProblem(res, {
        problem: {
          type: problemType('too-many-streams'),
          title: 'Too many event streams',
          status: 503,
          detail: `This instance has ${opened.open} event streams open, its limit (SSE_MAX_STREAMS); try again later, or poll GET /reassignments/{id}.`,
          instance: instance(req),
        },
        headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      });
    }
    // The client may have gone while the stream opened.
    if (res.closed || req.destroyed) return opened.close();
    res.once('close', opened.close);
  };

  router.get(
    '/reassignments/events',
    follow(() => null),
  );
  router.get(
    '/reassignments/:id/events',
    follow((req) => param(req, 'id')),
  );
  return router;
}
