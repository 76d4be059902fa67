// What the README's commands must leave as they found it, read over the gateway's HTTP API:
// topics and the replica list of every partition (order included: the first is the preferred
// leader), topic and broker config overrides (the throttle configs among them), the throttles as
// GET /throttles?detail=true lists them, and every client quota; and, from Kafka itself
// (DescribeLogDirs, which the API does not expose), the log dir of every replica.
import { Admin } from '@platformatic/kafka';

export interface DemoSnapshot {
  topics: Record<string, number[][]>;
  topicConfigs: Record<string, Record<string, string | null>>;
  brokerConfigs: Record<string, Record<string, string | null>>;
  throttles: unknown;
  quotas: unknown;
  /** `topic-partition@broker` -> its log dir. */
  logDirs: Record<string, string>;
}

async function getJson<T>(base: string, path: string): Promise<T> {
  const res = await fetch(base + path);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

interface Configs {
  configs: { name: string; value: string | null }[];
}

function overrides(body: Configs): Record<string, string | null> {
  return Object.fromEntries(body.configs.map((c) => [c.name, c.value]).sort(([a], [b]) => String(a).localeCompare(String(b))));
}

async function logDirs(bootstrapServers: string[], topics: DemoSnapshot['topics']): Promise<DemoSnapshot['logDirs']> {
  const admin = new Admin({ clientId: 'readme-check', bootstrapBrokers: bootstrapServers, retries: 0 });
  try {
    const answers = await admin.describeLogDirs({
      topics: Object.entries(topics).map(([name, parts]) => ({ name, partitions: parts.map((_, i) => i) })),
    });
    const out: [string, string][] = [];
    for (const a of answers)
      for (const dir of a.results)
        for (const t of dir.topics)
          for (const p of t.partitions)
            out.push([`${t.name}-${p.partitionIndex}@${a.broker}${p.isFutureKey ? ' (future)' : ''}`, dir.logDir]);
    return Object.fromEntries(out.sort(([a], [b]) => a.localeCompare(b)));
  } finally {
    await admin.close();
  }
}

export async function demoSnapshot(base: string, bootstrapServers: string[]): Promise<DemoSnapshot> {
  const names = (await getJson<{ topics: { name: string }[] }>(base, '/topics')).topics.map((t) => t.name).sort();
  const topics: DemoSnapshot['topics'] = {};
  const topicConfigs: DemoSnapshot['topicConfigs'] = {};
  for (const name of names) {
    const topic = await getJson<{ partitions: { partition: number; replicas: number[] }[] }>(base, `/topics/${encodeURIComponent(name)}`);
    topics[name] = topic.partitions.sort((a, b) => a.partition - b.partition).map((p) => p.replicas);
    topicConfigs[name] = overrides(await getJson<Configs>(base, `/topics/${encodeURIComponent(name)}/configs?includeDefaults=false`));
  }
  const brokers = (await getJson<{ brokers: { id: number }[] }>(base, '/cluster')).brokers.map((b) => b.id).sort((a, b) => a - b);
  const brokerConfigs: DemoSnapshot['brokerConfigs'] = {};
  for (const id of brokers) brokerConfigs[id] = overrides(await getJson<Configs>(base, `/brokers/${id}/configs?includeDefaults=false`));
  const throttles = await getJson<unknown>(base, '/throttles?detail=true');
  const quotas = await getJson<unknown>(base, '/quotas');
  return { topics, topicConfigs, brokerConfigs, throttles, quotas, logDirs: await logDirs(bootstrapServers, topics) };
}
