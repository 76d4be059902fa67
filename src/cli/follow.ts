// `kag reassign status ID --follow` (and `execute --follow`): a reassignment followed over the
// gateway's event stream (GET /reassignments/{id}/events, Server-Sent Events) instead of
// polling. Each event carries the summary (state, counts, bytes, rate): it is drawn as it
// arrives, in place on a terminal; the command ends when the reassignment does. A gateway
// without streams (404 route-not-found), or a stream that cannot be kept (two failures in a
// row, the instance's stream limit), falls back to polling (`--watch`).
import { ApiError, type Reassignment } from '../client/api.js';
import { followEventStream, type ServerSentEvent, type StreamError } from '../client/event-stream.js';
import { finishedState, progressLines } from './render.js';

export interface FollowIo {
  out: (s: string) => void;
  err: (s: string) => void;
  isTTY: boolean;
}

export interface FollowOptions {
  baseUrl: string;
  token: string | null;
  id: string;
  output: string;
  io: FollowIo;
  /** Polling instead, when the stream cannot be had. */
  fallback: () => Promise<number>;
  /** Exit code of a finished reassignment (3 failed/cancelled, null otherwise). */
  failedExit: (r: Reassignment) => number | null;
  fetch?: typeof fetch;
}

const ROUTE_NOT_FOUND = /\/route-not-found$/;

/** Follows until the reassignment ends; resolves with the exit code. */
export function followReassignment(o: FollowOptions): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let drawn = 0;
    let failures = 0;
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      handle.close();
      fn();
    };
    const draw = (e: ServerSentEvent, r: Reassignment) => {
      if (o.output === 'json') {
        o.io.out(
          JSON.stringify({
            event: e.event,
            ...(e.id !== null && { eventId: e.id }),
            id: r.id,
            state: r.state,
            paused: r.paused,
            counts: r.counts,
            progress: r.progress,
          }),
        );
        return;
      }
      const lines = progressLines({ summary: r, moving: [], more: null });
      if (o.io.isTTY && drawn > 0) o.io.out(`\x1b[${drawn}A\x1b[J${lines.join('\n')}`);
      else o.io.out(lines.join('\n'));
      drawn = lines.length;
    };
    const onError = (err: StreamError) => {
      failures++;
      if (err.status === 404 && !ROUTE_NOT_FOUND.test(err.problemType ?? '')) {
        return finish(() => reject(new ApiError(404, null, null, err.message)));
      }
      if (err.status === 401 || err.status === 403) return finish(() => reject(new ApiError(err.status!, null, null, err.message)));
      // No streams on this gateway, or none to be had now: poll instead.
      if (err.fatal || failures >= 2) {
        o.io.err(`(event stream unavailable: ${err.message}; polling instead)`);
        finish(() => void o.fallback().then(resolve, reject));
      }
    };
    const handle = followEventStream({
      url: `${o.baseUrl.replace(/\/+$/, '')}/reassignments/${encodeURIComponent(o.id)}/events`,
      token: o.token,
      ...(o.fetch && { fetch: o.fetch }),
      onOpen: () => (failures = 0),
      onError,
      onEvent: (e) => {
        let r: Reassignment | null | undefined;
        try {
          r = (JSON.parse(e.data) as { reassignment?: Reassignment | null }).reassignment;
        } catch {
          return;
        }
        if (!r) return;
        draw(e, r);
        if (finishedState(r.state)) {
          const code = o.failedExit(r);
          if (code !== null)
            o.io.err(
              `reassignment ${r.id} ${r.state}${r.counts.failed ? ` (${r.counts.failed} partition(s) failed)` : ''}${r.reason ? `: ${r.reason}` : ''}`,
            );
          finish(() => resolve(code ?? 0));
        }
      },
    });
  });
}
