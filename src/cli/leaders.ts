// `kag leaders elect`: leader elections through POST /leaders/elections, as
// kafka-leader-election.sh runs them (--election-type preferred|unclean, --all-topic-partitions,
// --topic / --partition), with the gateway's per-partition answer.
//
//   kag leaders elect [--type preferred|unclean] (--all | --topics a,b | --partitions t:0,t:1)
//                     [--confirm unclean-election-may-lose-data]
import type { GatewayClient, Schemas } from '../client/api.js';
import { table } from './render.js';

type ElectionAnswer = Schemas['LeaderElectionResponse'];

export interface LeaderOptions {
  type?: string;
  topics?: string;
  partitions?: string;
  all?: boolean;
  confirm?: string;
}

/** The request body from the options; a string is a usage error to print. */
export function electionBody(o: LeaderOptions): Schemas['LeaderElectionRequest'] | string {
  const type = o.type ?? 'preferred';
  if (type !== 'preferred' && type !== 'unclean') return `--type takes preferred or unclean, got "${type}"`;
  const scopes = [o.all ? 'all' : null, o.topics !== undefined ? 'topics' : null, o.partitions !== undefined ? 'partitions' : null].filter(
    Boolean,
  );
  if (scopes.length !== 1) return 'leaders elect needs exactly one of --all, --topics a,b, --partitions topic:partition,...';
  const body: Schemas['LeaderElectionRequest'] = { type, ...(o.confirm !== undefined && { confirm: o.confirm }) };
  if (o.all) return { ...body, all: true };
  if (o.topics !== undefined)
    return {
      ...body,
      topics: o.topics
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    };
  const partitions: { topic: string; partition: number }[] = [];
  for (const item of o
    .partitions!.split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    const m = /^(.+):(\d+)$/.exec(item);
    if (!m) return `--partitions takes topic:partition items, got "${item}"`;
    partitions.push({ topic: m[1], partition: Number(m[2]) });
  }
  return { ...body, partitions };
}

/** The answer as a terminal shows it: the counts, then the partitions an election was tried for. */
export function electionText(a: ElectionAnswer): string {
  const s = a.summary;
  return [
    `${a.type} election (${a.scope}): ${s.partitions} partition(s); ${s.elected} elected, ${s.notNeeded} not needed, ${s.notAvailable} not available, ${s.unknown} unknown, ${s.failed} failed.`,
    ...(a.results.length > 0
      ? [
          table(
            ['partition', 'result', 'kafka error'],
            a.results.map((r) => [
              `${r.topic}-${r.partition}`,
              r.outcome,
              r.kafkaError ? `${r.kafkaError.name} (${r.kafkaError.code})` : null,
            ]),
          ),
        ]
      : []),
  ].join('\n');
}

export async function electLeaders(client: GatewayClient, body: Schemas['LeaderElectionRequest']): Promise<ElectionAnswer> {
  return client.request<ElectionAnswer>('POST', '/leaders/elections', { body });
}
