// kafka-admin-gateway (alias kag): the gateway's command-line tool. It talks to a gateway
// over HTTP with the same typed client as the web console (src/client/api.ts).
//
//   kag [--url URL] [--token TOKEN] [--output table|json] <command> ...
//
// URL and token also come from KAG_URL / KAG_TOKEN (or GATEWAY_URL / GATEWAY_TOKEN).
// Exit codes: 0 ok; 1 the gateway refused or failed (problem printed); 2 usage error or an
// endpoint this gateway does not have; 3 `reassign status --watch|--follow` / `execute --watch|--follow` saw the
// reassignment end failed or cancelled (so CI pipelines stop).
//
// This file: the usage text, the global options, the commands that fit in a few lines; the
// option parsing is in args.ts, `kag reassign` in reassign.ts, `kag leaders` in leaders.ts.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ApiError, createClient, formatBytes, type GatewayClient } from '../client/api.js';
import { table } from './render.js';
import { electionBody, electionText, electLeaders } from './leaders.js';
import { OPTIONS, UsageError, intList, positiveInt, withInlineValues, type Connection, type Io, type Print, type Values } from './args.js';
import { reassign } from './reassign.js';

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
  const conn: Connection = {
    baseUrl: v.url ?? env.KAG_URL ?? env.GATEWAY_URL ?? 'http://localhost:8080',
    token: v.token ?? env.KAG_TOKEN ?? env.GATEWAY_TOKEN ?? null,
  };
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

async function dispatch(
  client: GatewayClient,
  pos: string[],
  v: Values,
  print: Print,
  io: Io,
  output: string,
  conn: Connection,
): Promise<number> {
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
        print(t, () =>
          table(
            ['partition', 'leader', 'replicas', 'isr'],
            t.partitions.map((p) => [p.partition, p.leader, p.replicas.join(','), p.isr.join(',')]),
          ),
        );
        return 0;
      }
      const list = await client.topics();
      print(list, () =>
        table(
          ['topic', 'partitions', 'rf', 'internal'],
          list.topics.map((t) => [t.name, t.partitions, t.replicationFactor, t.internal ? 'yes' : '']),
        ),
      );
      return 0;
    }
    case 'brokers':
      return brokers(client, print);
    case 'throttles': {
      const t = await client.throttles();
      print(t, () =>
        [
          'Rates (bytes/s):',
          table(
            ['broker', 'leader', 'follower', 'owner', 'autoRemove', 'expires', 'reassignments'],
            t.rates.map((r) => [
              r.broker,
              r.leaderRate,
              r.followerRate,
              r.owner,
              r.autoRemove ? 'yes' : 'no',
              r.expiresAt,
              r.reassignments.join(','),
            ]),
          ),
          '',
          'Throttled replicas:',
          table(
            ['topic', 'leader', 'follower', 'owner', 'autoRemove', 'reassignments'],
            t.replicas.map((r) => [
              r.topic,
              replicaList(r.leader, r.leaderEntries),
              replicaList(r.follower, r.followerEntries),
              r.owner,
              r.autoRemove ? 'yes' : 'no',
              r.reassignments.join(','),
            ]),
          ),
        ].join('\n'),
      );
      return 0;
    }
    case 'quotas': {
      const q = await client.quotas();
      print(q, () =>
        table(
          ['entity', 'quotas'],
          q.quotas.map(({ entity, ...rates }) => [
            Object.entries(entity)
              .map(([k, x]) => `${k}=${x ?? '<default>'}`)
              .join(','),
            Object.entries(rates)
              .map(([k, x]) => `${k}=${String(x)}`)
              .join(' '),
          ]),
        ),
      );
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
              return [
                b.broker,
                b.rack,
                `${b.replicas} → ${a?.replicas ?? '–'}`,
                `${b.leaders} → ${a?.leaders ?? '–'}`,
                `${formatBytes(b.bytes)} → ${formatBytes(a?.bytes)}`,
              ];
            }),
          ),
          ...plan.warnings.map((w) => `warning: ${w.message}`),
          v['output-file']
            ? `Reassignment file written to ${v['output-file']}: kag reassign execute --reassignment-json-file ${v['output-file']} --throttle BYTES/S`
            : 'Add --output-file FILE to save it as a reassignment file.',
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

async function brokers(client: GatewayClient, print: Print): Promise<number> {
  const fromGateway = await client.brokers();
  if (fromGateway) {
    print({ brokers: fromGateway }, () =>
      table(
        ['broker', 'rack', 'live', 'replicas', 'leaders', 'bytes', 'moving in/out'],
        fromGateway.map((b) => [
          b.id,
          b.rack,
          b.live === false ? 'no' : 'yes',
          b.replicas,
          b.leaders,
          formatBytes(b.bytes),
          b.reassignment ? `${b.reassignment.adding}/${b.reassignment.removing}` : '',
        ]),
      ),
    );
    return 0;
  }
  // Older gateway: count replicas and leaders from the topics (one request per topic).
  const [cluster, list] = await Promise.all([client.cluster(), client.topics()]);
  const load = new Map(
    cluster.brokers.map((b) => [b.id, { id: b.id, rack: b.rack, host: `${b.host}:${b.port}`, replicas: 0, leaders: 0 }]),
  );
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
  print({ brokers: rows, controllerId: cluster.controllerId }, () =>
    table(
      ['broker', 'host', 'rack', 'replicas', 'leaders', 'controller'],
      rows.map((b) => [b.id, b.host, b.rack, b.replicas, b.leaders, b.id === cluster.controllerId ? 'yes' : '']),
    ),
  );
  return 0;
}

/** A throttled-replicas value as set, or (a long one, left out of GET /throttles' lean answer) its entry count. */
const replicaList = (value: string | null | undefined, entries: number | null): string | null =>
  value !== undefined ? value : entries === null ? '*' : `(${entries} entries)`;

const io: Io = {
  out: (s) => process.stdout.write(`${s}\n`),
  err: (s) => process.stderr.write(`${s}\n`),
  isTTY: Boolean(process.stdout.isTTY),
};
run(process.argv.slice(2), process.env, io).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
