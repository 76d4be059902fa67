// kafka-admin-gateway (alias kag): the gateway's command-line tool. It talks to a gateway
// over HTTP with the same typed client as the web console (src/client/api.ts).
//
//   kag [--url URL] [--token TOKEN] [--output table|json] <command> ...
//
// URL and token also come from KAG_URL / KAG_TOKEN (or GATEWAY_URL / GATEWAY_TOKEN).
// Exit codes: 0 ok; 1 the gateway refused or failed (problem printed); 2 usage error or an
// endpoint this gateway does not have; 3 `reassign status --watch|--follow` / `execute --watch|--follow` saw the
// reassignment end failed or cancelled (so CI pipelines stop).
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ApiError, createClient, formatBytes, formatDuration, REASSIGNMENT_ORDERS, type GatewayClient, type Reassignment, type ReassignmentFile, type ReassignmentOrder, type ReassignmentStatus } from '../client/api.js';
import { pacingText, progressLines, table } from './render.js';
import { followReassignment } from './follow.js';
import { electionBody, electionText, electLeaders } from './leaders.js';

const USAGE = `Usage: kag [--url URL] [--token TOKEN] [--output table|json] <command>

Commands:
  whoami                                   who the gateway takes you for
  brokers                                  brokers with replicas, leaders (and bytes, throttles where the gateway has GET /brokers)
  topics [NAME]                            topics, or one topic's partitions
  plan decommission --brokers 1,2 [--output-file plan.json]
  plan rebalance [--brokers ...] [--topics ...] [--output-file plan.json]
  plan replication-factor --topics a,b --replication-factor N | plan rack-repair
                                           ask the gateway for a plan (POST /plans): before/after per broker;
                                           --output-file writes it in Kafka's reassignment file format
  reassign execute --reassignment-json-file FILE [--throttle BYTES/S] [--validate-only]
                   [--per-broker N] [--cluster N] [--order size-asc|size-desc|as-given]
                   [--rollback-file FILE] [--watch | --follow]
                                           paced execution: at most N moves in flight per broker / in the
                                           cluster (the next start as earlier ones complete), in that order
  reassign list
  reassign status ID [--watch [--interval SECONDS] | --follow]
                                           state, queued/moving/completed/failed counts, a bar per moving
                                           partition; --watch redraws until it ends (exit 3 on failure);
                                           --follow: the summary as the gateway's event stream sends it
                                           (no polling; polls if the gateway has no stream)
  reassign pause ID | resume ID            pause: moves in flight finish, no new one starts
  reassign concurrency ID [--per-broker N|none] [--cluster N|none]
                                           change the bounds of a paced reassignment
  reassign throttle ID BYTES/S             change the throttle of a running reassignment
  reassign cancel ID [--preserve-throttles]
  reassign rollback ID                     cancel, and move completed partitions back
  leaders elect [--type preferred|unclean] (--all | --topics a,b | --partitions t:0,t:1)
                [--confirm unclean-election-may-lose-data]
                                           leader elections (ElectLeaders): per-partition results
  throttles                                every replication throttle, with its owner
  quotas                                   client quotas

Environment: KAG_URL (default http://localhost:8080), KAG_TOKEN.
Exit codes: 0 ok, 1 refused/failed, 2 usage or endpoint missing, 3 a watched reassignment failed or was cancelled.`;

const OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h' },
  brokers: { type: 'string' },
  topics: { type: 'string' },
  'output-file': { type: 'string' },
  'replication-factor': { type: 'string' },
  'reassignment-json-file': { type: 'string' },
  'rollback-file': { type: 'string' },
  throttle: { type: 'string' },
  'per-broker': { type: 'string' },
  cluster: { type: 'string' },
  order: { type: 'string' },
  'validate-only': { type: 'boolean' },
  'preserve-throttles': { type: 'boolean' },
  watch: { type: 'boolean', short: 'w' },
  follow: { type: 'boolean', short: 'f' },
  interval: { type: 'string' },
  type: { type: 'string' },
  partitions: { type: 'string' },
  all: { type: 'boolean' },
  confirm: { type: 'string' },
} satisfies ParseArgsConfig['options'];

class UsageError extends Error {}

/**
 * `--token -Xy…` as `--token=-Xy…`: a string option's next argument is its value even when it
 * starts with a dash (a base64url token does one time in 64), which parseArgs would refuse as
 * ambiguous. `--` ends the options.
 */
function withInlineValues(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return [...out, ...argv.slice(i)];
    const name = a.startsWith('--') ? a.slice(2) : undefined;
    const opt = name !== undefined && !name.includes('=') ? (OPTIONS as Record<string, { type: string }>)[name] : undefined;
    if (opt?.type === 'string' && i + 1 < argv.length && argv[i + 1]!.startsWith('-') && argv[i + 1] !== '--') out.push(`${a}=${argv[++i]}`);
    else out.push(a);
  }
  return out;
}

interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  isTTY: boolean;
}

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function intList(v: string | undefined, name: string): number[] | undefined {
  if (v === undefined) return undefined;
  const xs = v.split(',').map((x) => x.trim()).filter(Boolean);
  if (!xs.every((x) => /^\d+$/.test(x))) throw new UsageError(`--${name} takes a comma-separated list of broker ids, got "${v}"`);
  return xs.map(Number);
}
/** A concurrency bound: a positive whole number, or `none` (no bound: null). */
function bound(v: string | undefined, name: string): number | null | undefined {
  if (v === 'none') return null;
  return positiveInt(v, name);
}
function positiveInt(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) <= 0) throw new UsageError(`--${name} takes a positive whole number, got "${v}"`);
  return Number(v);
}

function readReassignmentFile(path: string): ReassignmentFile {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read ${path} as JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  const d = doc as Partial<ReassignmentFile>;
  if (!d || typeof d !== 'object' || !Array.isArray(d.partitions)) throw new UsageError(`${path} is not a Kafka reassignment file ({"version":1,"partitions":[...]})`);
  return d as ReassignmentFile;
}

/** Kafka's file format, as kafka-reassign-partitions.sh writes it (log_dirs "any"). */
function toKafkaFile(parts: { topic: string; partition: number; replicas: number[] }[]): ReassignmentFile {
  return { version: 1, partitions: parts.map((p) => ({ topic: p.topic, partition: p.partition, replicas: [...p.replicas], log_dirs: p.replicas.map(() => 'any') })) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function run(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: withInlineValues(argv), options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    io.err(`${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    return 2;
  }
  const { values: v, positionals: pos } = parsed;
  if (v.help || pos.length === 0) {
    (v.help ? io.out : io.err)(USAGE);
    return v.help ? 0 : 2;
  }
  const output = v.output ?? 'table';
  if (output !== 'table' && output !== 'json') {
    io.err(`--output must be table or json, got "${output}"`);
    return 2;
  }
  const conn: Connection = { baseUrl: v.url ?? env.KAG_URL ?? env.GATEWAY_URL ?? 'http://localhost:8080', token: v.token ?? env.KAG_TOKEN ?? env.GATEWAY_TOKEN ?? null };
  const client = createClient(conn);
  const print = (json: unknown, render: () => string) => io.out(output === 'json' ? JSON.stringify(json, null, 2) : render());

  try {
    return await dispatch(client, pos, v, print, io, output, conn);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`${err.message}\n\nRun kag --help for usage.`);
      return 2;
    }
    if (err instanceof ApiError) {
      if (output === 'json' && err.problem) io.out(JSON.stringify(err.problem, null, 2));
      io.err(`error: ${err.message}`);
      return 1;
    }
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    io.err(`error: ${err instanceof Error ? err.message : String(err)}${cause ? ` (${cause})` : ''}`);
    return 1;
  }
}

/** Where the gateway is and who we are (the event streams are read beside the client). */
interface Connection {
  baseUrl: string;
  token: string | null;
}

async function dispatch(client: GatewayClient, pos: string[], v: Values, print: (json: unknown, render: () => string) => void, io: Io, output: string, conn: Connection): Promise<number> {
  const [cmd, sub, ...rest] = pos;
  switch (cmd) {
    case 'whoami': {
      const me = await client.whoami();
      print(me, () => `${me.id} (${me.role}; authentication ${me.authentication})`);
      return 0;
    }
    case 'topics': {
      if (sub) {
        const t = await client.topic(sub);
        print(t, () => table(['partition', 'leader', 'replicas', 'isr'], t.partitions.map((p) => [p.partition, p.leader, p.replicas.join(','), p.isr.join(',')])));
        return 0;
      }
      const list = await client.topics();
      print(list, () => table(['topic', 'partitions', 'rf', 'internal'], list.topics.map((t) => [t.name, t.partitions, t.replicationFactor, t.internal ? 'yes' : ''])));
      return 0;
    }
    case 'brokers':
      return brokers(client, print);
    case 'throttles': {
      const t = await client.throttles();
      print(t, () =>
        [
          'Rates (bytes/s):',
          table(['broker', 'leader', 'follower', 'owner', 'autoRemove', 'expires', 'reassignments'], t.rates.map((r) => [r.broker, r.leaderRate, r.followerRate, r.owner, r.autoRemove ? 'yes' : 'no', r.expiresAt, r.reassignments.join(',')])),
          '',
          'Throttled replicas:',
          table(['topic', 'leader', 'follower', 'owner', 'autoRemove', 'reassignments'], t.replicas.map((r) => [r.topic, replicaList(r.leader, r.leaderEntries), replicaList(r.follower, r.followerEntries), r.owner, r.autoRemove ? 'yes' : 'no', r.reassignments.join(',')])),
        ].join('\n'),
      );
      return 0;
    }
    case 'quotas': {
      const q = await client.quotas();
      print(q, () => table(['entity', 'quotas'], q.quotas.map((e) => [Object.entries(e.entity).map(([k, x]) => `${k}=${x ?? '<default>'}`).join(','), Object.entries(e).filter(([k]) => k !== 'entity').map(([k, x]) => `${k}=${String(x)}`).join(' ')])));
      return 0;
    }
    case 'plan': {
      if (!sub) throw new UsageError('plan needs a goal: decommission, rebalance, replication-factor, rack-repair');
      const rf = positiveInt(v['replication-factor'], 'replication-factor');
      const body = {
        goal: sub,
        ...(v.brokers && { brokers: intList(v.brokers, 'brokers') }),
        ...(v.topics && { topics: v.topics.split(',') }),
        ...(rf !== undefined && { replicationFactor: rf }),
      };
      const plan = await client.plan(body);
      if (plan === null) {
        io.err('This gateway has no POST /plans (an older version); write a reassignment file and use `reassign execute`.');
        return 2;
      }
      if (v['output-file']) writeFileSync(v['output-file'], `${JSON.stringify(plan.reassignment, null, 2)}\n`);
      print(plan, () => {
        const after = new Map(plan.after.map((b) => [b.broker, b]));
        return [
          `${plan.goal}: ${plan.movedReplicas} replica move(s), ${formatBytes(plan.movedBytes)} to copy, ${plan.partitions.length} partition(s) change.`,
          table(
            ['broker', 'rack', 'replicas', 'leaders', 'bytes'],
            plan.before.map((b) => {
              const a = after.get(b.broker);
              return [b.broker, b.rack, `${b.replicas} → ${a?.replicas ?? '–'}`, `${b.leaders} → ${a?.leaders ?? '–'}`, `${formatBytes(b.bytes)} → ${formatBytes(a?.bytes)}`];
            }),
          ),
          ...plan.warnings.map((w) => `warning: ${w.message}`),
          v['output-file'] ? `Reassignment file written to ${v['output-file']}: kag reassign execute --reassignment-json-file ${v['output-file']} --throttle BYTES/S` : 'Add --output-file FILE to save it as a reassignment file.',
        ].join('\n');
      });
      return 0;
    }
    case 'leaders': {
      if (sub !== 'elect') throw new UsageError('leaders needs a subcommand: elect');
      const body = electionBody(v);
      if (typeof body === 'string') throw new UsageError(body);
      const answer = await electLeaders(client, body);
      print(answer, () => electionText(answer));
      return 0;
    }
    case 'reassign':
      return reassign(client, sub, rest, v, print, io, output, conn);
    default:
      throw new UsageError(`unknown command "${cmd}"`);
  }
}

async function brokers(client: GatewayClient, print: (json: unknown, render: () => string) => void): Promise<number> {
  const fromGateway = await client.brokers();
  if (fromGateway) {
    print({ brokers: fromGateway }, () =>
      table(
        ['broker', 'rack', 'live', 'replicas', 'leaders', 'bytes', 'moving in/out'],
        fromGateway.map((b) => [b.id, b.rack, b.live === false ? 'no' : 'yes', b.replicas, b.leaders, formatBytes(b.bytes), b.reassignment ? `${b.reassignment.adding}/${b.reassignment.removing}` : '']),
      ),
    );
    return 0;
  }
  // Older gateway: count replicas and leaders from the topics (one request per topic).
  const [cluster, list] = await Promise.all([client.cluster(), client.topics()]);
  const load = new Map(cluster.brokers.map((b) => [b.id, { id: b.id, rack: b.rack, host: `${b.host}:${b.port}`, replicas: 0, leaders: 0 }]));
  for (const t of list.topics) {
    const detail = await client.topic(t.name);
    for (const p of detail.partitions) {
      for (const r of p.replicas) {
        const b = load.get(r);
        if (b) b.replicas++;
      }
      const l = load.get(p.leader);
      if (l) l.leaders++;
    }
  }
  const rows = [...load.values()];
  print({ brokers: rows, controllerId: cluster.controllerId }, () => table(['broker', 'host', 'rack', 'replicas', 'leaders', 'controller'], rows.map((b) => [b.id, b.host, b.rack, b.replicas, b.leaders, b.id === cluster.controllerId ? 'yes' : ''])));
  return 0;
}

async function reassign(client: GatewayClient, sub: string | undefined, rest: string[], v: Values, print: (json: unknown, render: () => string) => void, io: Io, output: string, conn: Connection): Promise<number> {
  // --follow: over the event stream; polling (--watch) when the gateway has none.
  const follow = (id: string) => followReassignment({ ...conn, id, output, io, fallback: () => watch(client, id, v, io, output), failedExit: (r) => failedExit({ summary: r, moving: [], more: null }) });
  const needId = () => {
    const id = rest[0];
    if (!id) throw new UsageError(`reassign ${sub} needs a reassignment id`);
    return id;
  };
  switch (sub) {
    case 'list': {
      const l = await client.reassignments();
      print(l, () =>
        table(['id', 'state', 'partitions', 'moving now', 'throttle', 'created'], l.reassignments.map((r) => [r.id, r.state, r.partitionCount, r.movingCount, r.throttle === null ? '' : `${formatBytes(r.throttle)}/s`, r.createdAt])) +
        (l.externalCount ? `\n\n${l.externalCount} partition(s) moving under reassignments started elsewhere.` : ''),
      );
      return 0;
    }
    case 'execute': {
      const file = v['reassignment-json-file'];
      if (!file) throw new UsageError('reassign execute needs --reassignment-json-file FILE (Kafka\'s format)');
      const doc = readReassignmentFile(file);
      const throttle = positiveInt(v.throttle, 'throttle');
      const concurrency = concurrencyOf(v);
      if (v.order !== undefined && !REASSIGNMENT_ORDERS.includes(v.order as ReassignmentOrder)) throw new UsageError(`--order must be ${REASSIGNMENT_ORDERS.join(', ')}, got "${v.order}"`);
      const body = {
        ...doc,
        ...(throttle !== undefined && { throttle }),
        ...(concurrency && { concurrency }),
        ...(v.order !== undefined && { order: v.order as ReassignmentOrder }),
        ...(v['validate-only'] && { validateOnly: true }),
      };
      const answer = await client.startReassignment(body, { detail: Boolean(v['validate-only']) });
      if (!('id' in answer)) {
        const paced = answer.pacing ? ` Paced: ${answer.pacing.waveCount} wave(s), at most ${answer.pacing.peakInFlight} move(s) in flight, about ${formatDuration(answer.pacing.estimatedSeconds)} in all.` : '';
        print(answer, () => `Valid. ${answer.totals.partitions} partition(s), ${formatBytes(answer.estimate.totalBytes)} to copy, about ${formatDuration(answer.estimate.estimatedSeconds)}.${paced}\n${table(['topic', 'partition', 'current', 'target', 'adding', 'removing'], (answer.partitions ?? []).map((p) => [p.topic, p.partition, p.currentReplicas.join(','), p.targetReplicas.join(','), p.adding.join(','), p.removing.join(',')]))}`);
        return 0;
      }
      if (v['rollback-file']) writeFileSync(v['rollback-file'], `${JSON.stringify(answer.rollback, null, 2)}\n`);
      print(answer, () =>
        [
          `Started reassignment ${answer.id} (${answer.summary.counts.total} partition(s), ${formatBytes(answer.summary.progress.bytesTotal)}; ${answer.summary.counts.moving} moving, ${answer.summary.counts.queued} queued; pacing: ${pacingText(answer.summary)}).`,
          v['rollback-file'] ? `Current assignment saved to ${v['rollback-file']} (use it as --reassignment-json-file to roll back).` : `Current partition replica assignment (save it for a rollback):\n${JSON.stringify(answer.rollback)}`,
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
      print(r, () => `${r.id}: ${r.state}${r.paused ? ' (moves in flight finish, none start; resume with `kag reassign resume ' + r.id + '`)' : ''}; ${countsText(r)}`);
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
      print(c, () => `${c.id}: ${c.state}; ${c.cancelled.length} partition move(s) cancelled${c.rollback ? `; rollback started as ${c.rollback.id} (kag reassign status ${c.rollback.id} --watch)` : ''}`);
      return 0;
    }
    default:
      throw new UsageError(`reassign needs one of execute, list, status, pause, resume, concurrency, throttle, cancel, rollback${sub ? ` (got "${sub}")` : ''}`);
  }
}

/** --per-broker / --cluster as a concurrency object; undefined when neither is given. */
function concurrencyOf(v: Values): { perBroker?: number | null; cluster?: number | null } | undefined {
  const perBroker = bound(v['per-broker'], 'per-broker');
  const cluster = bound(v.cluster, 'cluster');
  if (perBroker === undefined && cluster === undefined) return undefined;
  return { ...(perBroker !== undefined && { perBroker }), ...(cluster !== undefined && { cluster }) };
}

/** A throttled-replicas value as set, or (a long one, left out of GET /throttles' lean answer) its entry count. */
const replicaList = (value: string | null | undefined, entries: number | null): string | null =>
  value !== undefined ? value : entries === null ? '*' : `(${entries} entries)`;

const countsText = (r: Reassignment): string => `${r.counts.queued} queued, ${r.counts.moving} moving, ${r.counts.completed} completed, ${r.counts.failed} failed`;

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
    if (output === 'json') io.out(JSON.stringify({ id: r.id, state: r.state, paused: r.paused, counts: r.counts, progress: r.progress, moving: st.moving.map((p) => ({ topic: p.topic, partition: p.partition, percent: p.percent })) }));
    else {
      const lines = progressLines(st);
      if (io.isTTY && drawn > 0) io.out(`\x1b[${drawn}A\x1b[J${lines.join('\n')}`);
      else io.out(lines.join('\n'));
      drawn = lines.length;
    }
    if (r.state === 'completed' || r.state === 'failed' || r.state === 'cancelled') {
      const code = failedExit(st);
      if (code !== null) io.err(`reassignment ${r.id} ${r.state}${r.counts.failed ? ` (${r.counts.failed} partition(s) failed)` : ''}${r.reason ? `: ${r.reason}` : ''}`);
      return code ?? 0;
    }
    await sleep(interval * 1000);
  }
}

const io: Io = { out: (s) => process.stdout.write(`${s}\n`), err: (s) => process.stderr.write(`${s}\n`), isTTY: Boolean(process.stdout.isTTY) };
run(process.argv.slice(2), process.env, io).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
