// What Kafka the gateway talks to, from one broker's ApiVersions answer (issue 29): the release
// (as franz-go's kversion.VersionGuess names it: "3.7", "4.2 or newer", "unknown"), the mode
// (KRaft or ZooKeeper) and the gateway features that release lacks, each named. Pure: the
// table of ranges per release and the APIs the gateway sends are given (src/kafka/releases/,
// src/kafka/apis/versions.ts).
//
// Mode: a KRaft cluster always has the `metadata.version` feature finalized (KIP-778; KRaft was
// production-ready from 3.3, KIP-833, and every release since finalizes it); ZooKeeper-mode
// brokers have no finalized metadata.version (they may list it as supported, never finalized).
// Release: in KRaft mode, the newest metadata.version the broker supports names its release
// (MetadataVersion.LATEST_PRODUCTION of each release; the finalized level is the operator's
// choice and may be older); in ZooKeeper mode, the release whose table has the same newest
// version of every API the broker lists (as kversion compares maxima).

/** A broker's ApiVersions answer, as plain data. */
export interface ApiVersionsAnswer {
  apis: readonly { key: number; min: number; max: number }[];
  supportedFeatures: readonly { name: string; minVersion: number; maxVersion: number }[];
  finalizedFeatures: readonly { name: string; minVersionLevel: number; maxVersionLevel: number }[];
}

/** release key ("zk-3.7", "kraft-broker-4.2") -> API name -> [apiKey, min, max] */
export type ReleaseTable = Readonly<Record<string, Readonly<Record<string, readonly [number, number, number]>>>>;

/** An API the gateway sends and the versions it speaks (GATEWAY_APIS). */
export interface SpokenApi {
  name: string;
  key: number;
  min: number;
  max: number;
}

export type KafkaMode = 'kraft' | 'zookeeper';

export interface DegradedFeature {
  /** A stable name: disk-headroom, log-dirs-authorization, describe-cluster, controller-mutation-quotas. */
  feature: string;
  /** What the gateway does instead, and why. */
  detail: string;
}

export interface KafkaReleaseInfo {
  /** "3.7", "3.3 or 3.4" (the broker's answer fits both), "4.2 or newer", or "unknown". */
  release: string;
  mode: KafkaMode;
  degraded: DegradedFeature[];
  /** Set when the cluster is below the gateway's floor (Kafka 2.8): why it is refused. */
  refused: string | null;
}

/** The gateway's floor: the oldest release every API it sends has a version in common with. */
export const FLOOR_RELEASE = '2.8';

/**
 * metadata.version feature level -> the release it first belongs to (MetadataVersion.java:
 * 3.3-IV3 = 7, 3.4-IV0 = 8, 3.5-IV0..IV2 = 9-11, 3.6-IV0..IV2 = 12-14, 3.7-IV0..IV4 = 15-19,
 * 3.8-IV0 = 20, 3.9-IV0 = 21, 4.0-IV0..IV3 = 22-25, 4.1-IV0..IV1 = 26-27, 4.2-IV0..IV1 = 28-29).
 */
const METADATA_VERSION_RELEASES: readonly (readonly [firstLevel: number, release: string])[] = [
  [7, '3.3'],
  [8, '3.4'],
  [9, '3.5'],
  [12, '3.6'],
  [15, '3.7'],
  [20, '3.8'],
  [21, '3.9'],
  [22, '4.0'],
  [26, '4.1'],
  [28, '4.2'],
];
const NEWEST_KNOWN_LEVEL = 29;

export function detectMode(answer: ApiVersionsAnswer): KafkaMode {
  return answer.finalizedFeatures.some((f) => f.name === 'metadata.version') ? 'kraft' : 'zookeeper';
}

const releaseOf = (key: string): string => key.replace(/^(zk|kraft-broker)-/, '');
const order = (release: string): number => {
  const [major, minor] = release.split('.').map(Number);
  return major * 1000 + minor;
};

function describeCandidates(releases: string[]): string {
  if (releases.length === 1) return releases[0];
  if (releases.length === 2) return `${releases[0]} or ${releases[1]}`;
  return `${releases[0]} to ${releases.at(-1)}`;
}

/** The release by API maxima among the table's releases of `mode` (ZooKeeper, or KRaft without features). */
function guessByTable(answer: ApiVersionsAnswer, table: ReleaseTable, mode: KafkaMode): string {
  const prefix = mode === 'kraft' ? 'kraft-broker-' : 'zk-';
  const keys = Object.keys(table)
    .filter((k) => k.startsWith(prefix))
    .sort((a, b) => order(releaseOf(a)) - order(releaseOf(b)));
  if (keys.length === 0 || answer.apis.length === 0) return 'unknown';
  const maxOf = (key: string): Map<number, number> => new Map(Object.values(table[key]).map(([k, , max]) => [k, max]));
  const exact: string[] = [];
  for (const key of keys) {
    const max = maxOf(key);
    if (answer.apis.every((a) => max.get(a.key) === a.max)) exact.push(releaseOf(key));
  }
  if (exact.length > 0) return describeCandidates(exact);
  // Newer than the newest the table knows: every API at least as new, one newer (or one more API).
  const newest = maxOf(keys.at(-1)!);
  const atLeast = answer.apis.every((a) => !newest.has(a.key) || a.max >= newest.get(a.key)!);
  const beyond = answer.apis.some((a) => !newest.has(a.key) || a.max > newest.get(a.key)!);
  return atLeast && beyond ? `${releaseOf(keys.at(-1)!)} or newer` : 'unknown';
}

/** The release the broker behind `answer` runs, as described in the header. */
export function guessRelease(answer: ApiVersionsAnswer, table: ReleaseTable): string {
  const mode = detectMode(answer);
  const mv = answer.supportedFeatures.find((f) => f.name === 'metadata.version');
  if (mode === 'kraft' && mv) {
    if (mv.maxVersion > NEWEST_KNOWN_LEVEL) return `${METADATA_VERSION_RELEASES.at(-1)![1]} or newer`;
    let release = 'unknown';
    for (const [first, r] of METADATA_VERSION_RELEASES) if (mv.maxVersion >= first) release = r;
    return release;
  }
  return guessByTable(answer, table, mode);
}

/** The highest version of `api` the answer and the gateway share, or null. */
export function sharedVersion(answer: ApiVersionsAnswer, api: SpokenApi): number | null {
  const a = answer.apis.find((x) => x.key === api.key);
  if (!a) return null;
  const v = Math.min(a.max, api.max);
  return v >= Math.max(a.min, api.min) ? v : null;
}

/** The gateway features a broker with this answer lacks, by name (none missing: []). */
export function degradedFeatures(answer: ApiVersionsAnswer, apis: readonly SpokenApi[]): DegradedFeature[] {
  const version = (name: string): number | null => {
    const api = apis.find((a) => a.name === name);
    return api ? sharedVersion(answer, api) : null;
  };
  const out: DegradedFeature[] = [];
  const logDirs = version('DescribeLogDirs');
  if (logDirs !== null && logDirs < 4) {
    out.push({
      feature: 'disk-headroom',
      detail: `DescribeLogDirs v${logDirs} (Kafka before 3.3) has no total_bytes / usable_bytes (KIP-827): a log dir's size and free space are unknown`,
    });
  }
  if (logDirs !== null && logDirs < 3) {
    out.push({
      feature: 'log-dirs-authorization',
      detail: `DescribeLogDirs v${logDirs} (Kafka before 3.2) has no top-level error code (KIP-784): a request the broker refuses reads as a broker with no log dirs`,
    });
  }
  if (version('DescribeCluster') === null) {
    out.push({
      feature: 'describe-cluster',
      detail: 'no DescribeCluster (Kafka before 2.8): the brokers and the controller come from Metadata',
    });
  }
  const createTopics = answer.apis.find((a) => a.key === 19);
  if (!createTopics || createTopics.max < 6) {
    out.push({
      feature: 'controller-mutation-quotas',
      detail:
        'controller mutation quotas and THROTTLING_QUOTA_EXCEEDED (89) need Kafka 2.7+ (KIP-599, CreateTopics v6): no 429 from the broker',
    });
  }
  return out;
}

/** Why a broker with this answer is below the gateway's floor (APIs it shares no version of), or null. */
export function refusal(answer: ApiVersionsAnswer, apis: readonly SpokenApi[], release: string, mode: KafkaMode): string | null {
  const missing = apis.filter((api) => sharedVersion(answer, api) === null);
  if (missing.length === 0) return null;
  const what = missing.map((api) => {
    const a = answer.apis.find((x) => x.key === api.key);
    return `${api.name} v${api.min}-v${api.max} (${a ? `it accepts v${a.min}-v${a.max}` : 'it has none'})`;
  });
  const modeName = mode === 'kraft' ? 'KRaft' : 'ZooKeeper';
  return `Kafka ${release} (${modeName} mode) detected; the gateway needs Kafka ${FLOOR_RELEASE} or later and speaks ${what.join(', ')}`;
}

/** Release, mode, degraded features and, below the floor, the refusal. */
export function describeKafka(answer: ApiVersionsAnswer, table: ReleaseTable, apis: readonly SpokenApi[]): KafkaReleaseInfo {
  const mode = detectMode(answer);
  const release = guessRelease(answer, table);
  return { release, mode, degraded: degradedFeatures(answer, apis), refused: refusal(answer, apis, release, mode) };
}
