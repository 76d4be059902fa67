// `kag reassign …`: execute (a Kafka reassignment file, paced and throttled), list, status
// (--watch polls, --follow reads the event stream), pause, resume, concurrency, throttle,
// cancel, rollback.
import { writeFileSync } from 'node:fs';
import {
  ApiError,
  formatBytes,
  formatDuration,
  REASSIGNMENT_ORDERS,
  type GatewayClient,
  type Reassignment,
  type ReassignmentOrder,
  type ReassignmentStatus,
} from '../client/api.js';
import { pacingText, progressLines, table } from './render.js';
import { followReassignment } from './follow.js';
import { UsageError, concurrencyOf, positiveInt, readReassignmentFile, type Connection, type Io, type Print, type Values } from './args.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function reassign(
  client: GatewayClient,
  sub: string | undefined,
  rest: string[],
  v: Values,
  print: Print,
  io: Io,
  output: string,
  conn: Connection,
): Promise<number> {
  // --follow: over the event stream; polling (--watch) when the gateway has none.
  const follow = (id: string) =>
    followReassignment({
      ...conn,
      id,
      output,
      io,
      fallback: () => watch(client, id, v, io, output),
      failedExit: (r) => failedExit({ summary: r, moving: [], more: null }),
    });
  const needId = () => {
    const id = rest[0];
    if (!id) throw new UsageError(`reassign ${sub} needs a reassignment id`);
    return id;
  };
  switch (sub) {
    case 'list': {
      const l = await client.reassignments();
      print(
        l,
        () =>
          table(
            ['id', 'state', 'partitions', 'moving now', 'throttle', 'created'],
            l.reassignments.map((r) => [
              r.id,
              r.state,
              r.partitionCount,
              r.movingCount,
              r.throttle === null ? '' : `${formatBytes(r.throttle)}/s`,
              r.createdAt,
            ]),
          ) + (l.externalCount ? `\n\n${l.externalCount} partition(s) moving under reassignments started elsewhere.` : ''),
      );
      return 0;
    }
    case 'execute': {
      const file = v['reassignment-json-file'];
      if (!file) throw new UsageError("reassign execute needs --reassignment-json-file FILE (Kafka's format)");
      const doc = readReassignmentFile(file);
      const throttle = positiveInt(v.throttle, 'throttle');
      const concurrency = concurrencyOf(v);
      if (v.order !== undefined && !REASSIGNMENT_ORDERS.includes(v.order as ReassignmentOrder))
        throw new UsageError(`--order must be ${REASSIGNMENT_ORDERS.join(', ')}, got "${v.order}"`);
      const body = {
        ...doc,
        ...(throttle !== undefined && { throttle }),
        ...(concurrency && { concurrency }),
        ...(v.order !== undefined && { order: v.order as ReassignmentOrder }),
        ...(v['validate-only'] && { validateOnly: true }),
      };
      const answer = await client.startReassignment(body, { detail: Boolean(v['validate-only']) });
      if (!('id' in answer)) {
        const paced = answer.pacing
          ? ` Paced: ${answer.pacing.waveCount} wave(s), at most ${answer.pacing.peakInFlight} move(s) in flight, about ${formatDuration(answer.pacing.estimatedSeconds)} in all.`
          : '';
        print(
          answer,
          () =>
            `Valid. ${answer.totals.partitions} partition(s), ${formatBytes(answer.estimate.totalBytes)} to copy, about ${formatDuration(answer.estimate.estimatedSeconds)}.${paced}\n${table(
              ['topic', 'partition', 'current', 'target', 'adding', 'removing'],
              (answer.partitions ?? []).map((p) => [
                p.topic,
                p.partition,
                p.currentReplicas.join(','),
                p.targetReplicas.join(','),
                p.adding.join(','),
                p.removing.join(','),
              ]),
            )}`,
        );
        return 0;
      }
      if (v['rollback-file']) writeFileSync(v['rollback-file'], `${JSON.stringify(answer.rollback, null, 2)}\n`);
      print(answer, () =>
        [
          `Started reassignment ${answer.id} (${answer.summary.counts.total} partition(s), ${formatBytes(answer.summary.progress.bytesTotal)}; ${answer.summary.counts.moving} moving, ${answer.summary.counts.queued} queued; pacing: ${pacingText(answer.summary)}).`,
          v['rollback-file']
            ? `Current assignment saved to ${v['rollback-file']} (use it as --reassignment-json-file to roll back).`
            : `Current partition replica assignment (save it for a rollback):\n${JSON.stringify(answer.rollback)}`,
          `Follow it: kag reassign status ${answer.id} --follow`,
        ].join('\n'),
      );
      if (v.follow) return follow(answer.id);
      if (v.watch) return watch(client, answer.id, v, io, output);
      return 0;
    }
    case 'status': {
      const id = needId();
      if (v.follow) return follow(id);
      if (v.watch) return watch(client, id, v, io, output);
      const st = await client.reassignmentStatus(id);
      print(st, () => progressLines(st).join('\n'));
      return failedExit(st) ?? 0;
    }
    case 'pause':
    case 'resume': {
      const id = needId();
      const r = sub === 'pause' ? await client.pauseReassignment(id) : await client.resumeReassignment(id);
      print(
        r,
        () =>
          `${r.id}: ${r.state}${r.paused ? ' (moves in flight finish, none start; resume with `kag reassign resume ' + r.id + '`)' : ''}; ${countsText(r)}`,
      );
      return 0;
    }
    case 'concurrency': {
      const id = needId();
      const concurrency = concurrencyOf(v);
      if (!concurrency) throw new UsageError('reassign concurrency ID --per-broker N|none [--cluster N|none]');
      const r = await client.patchReassignment(id, { concurrency });
      print(r, () => `${r.id}: ${r.state}; pacing: ${pacingText(r)}; ${countsText(r)}`);
      return 0;
    }
    case 'throttle': {
      const id = needId();
      const rate = rest[1];
      if (!rate || !/^\d+$/.test(rate)) throw new UsageError('reassign throttle ID BYTES_PER_SECOND');
      const r = await client.patchReassignment(id, { throttle: Number(rate) });
      print(r, () => `${r.id}: throttle ${formatBytes(r.throttle)}/s`);
      return 0;
    }
    case 'cancel':
    case 'rollback': {
      const id = needId();
      const c = await client.cancelReassignment(id, { rollback: sub === 'rollback', preserveThrottles: v['preserve-throttles'] ?? false });
      print(
        c,
        () =>
          `${c.id}: ${c.state}; ${c.cancelled.length} partition move(s) cancelled${c.rollback ? `; rollback started as ${c.rollback.id} (kag reassign status ${c.rollback.id} --watch)` : ''}`,
      );
      return 0;
    }
    default:
      throw new UsageError(
        `reassign needs one of execute, list, status, pause, resume, concurrency, throttle, cancel, rollback${sub ? ` (got "${sub}")` : ''}`,
      );
  }
}

const countsText = (r: Reassignment): string =>
  `${r.counts.queued} queued, ${r.counts.moving} moving, ${r.counts.completed} completed, ${r.counts.failed} failed`;

/** Exit 3 when the reassignment ended failed or cancelled, or ended with failed partitions. */
function failedExit(st: ReassignmentStatus): number | null {
  const r = st.summary;
  if (r.state === 'failed' || r.state === 'cancelled') return 3;
  if (r.state === 'completed' && r.counts.failed > 0) return 3;
  return null;
}

/** Polls until the reassignment ends; redraws in place on a terminal, one block per poll otherwise. */
async function watch(client: GatewayClient, id: string, v: Values, io: Io, output: string): Promise<number> {
  const interval = Number(v.interval ?? '2');
  if (!Number.isFinite(interval) || interval < 0.1) throw new UsageError(`--interval takes seconds (≥ 0.1), got "${v.interval}"`);
  let drawn = 0;
  for (;;) {
    let st: ReassignmentStatus;
    try {
      st = await client.reassignmentStatus(id, 20);
    } catch (err) {
      // 429/503 while watching: wait as told and keep watching.
      if (err instanceof ApiError && (err.status === 429 || err.status === 503)) {
        io.err(`(${err.status}; retrying in ${err.retryAfterSeconds ?? interval} s)`);
        await sleep((err.retryAfterSeconds ?? interval) * 1000);
        continue;
      }
      throw err;
    }
    const r = st.summary;
    if (output === 'json')
      io.out(
        JSON.stringify({
          id: r.id,
          state: r.state,
          paused: r.paused,
          counts: r.counts,
          progress: r.progress,
          moving: st.moving.map((p) => ({ topic: p.topic, partition: p.partition, percent: p.percent })),
        }),
      );
    else {
      const lines = progressLines(st);
      if (io.isTTY && drawn > 0) io.out(`\x1b[${drawn}A\x1b[J${lines.join('\n')}`);
      else io.out(lines.join('\n'));
      drawn = lines.length;
    }
    if (r.state === 'completed' || r.state === 'failed' || r.state === 'cancelled') {
      const code = failedExit(st);
      if (code !== null)
        io.err(
          `reassignment ${r.id} ${r.state}${r.counts.failed ? ` (${r.counts.failed} partition(s) failed)` : ''}${r.reason ? `: ${r.reason}` : ''}`,
        );
      return code ?? 0;
    }
    await sleep(interval * 1000);
  }
}
