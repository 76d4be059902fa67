// The Kafka release the simulator answers as (`--kafka-version 3.7 --kafka-mode zookeeper`):
// the request version ranges its brokers advertise and accept, from the shared table
// (src/domain/kafka-api-versions-by-release.ts), cut down to what this simulator's handlers serve, and the
// features ApiVersions v3+ reports. Default: the newest release in the table, in KRaft mode.
//
// Behaviours that differ by mode and that the gateway depends on (the handlers read `mode`):
// ZooKeeper-mode brokers answer NOT_CONTROLLER for controller requests sent to another broker
// and report the real controller id (KafkaApis + KafkaController.scala); KRaft-mode brokers
// forward controller requests and report a random live broker (MetadataCache.getRandomAliveBrokerId).
import { API_VERSIONS_BY_RELEASE } from '../../domain/kafka-api-versions-by-release.js';

export type KafkaMode = 'zookeeper' | 'kraft';

export interface ApiVersionsFeatures {
  supportedFeatures: { name: string; minVersion: number; maxVersion: number }[];
  finalizedFeaturesEpoch: number;
  finalizedFeatures: { name: string; maxVersionLevel: number; minVersionLevel: number }[];
  zkMigrationReady: boolean;
}

export interface KafkaRelease {
  /** "3.7" */
  readonly version: string;
  readonly mode: KafkaMode;
  /** The table's key: zk-3.7, kraft-broker-3.7. */
  readonly tableKey: string;
  /** API key -> [min, max] the release's brokers accept (every API of the release, implemented or not). */
  readonly ranges: ReadonlyMap<number, readonly [number, number]>;
  /** What ApiVersions v3+ reports (KIP-584). */
  readonly features: ApiVersionsFeatures;
}

/**
 * The newest `metadata.version` feature level a KRaft broker of each release supports by default
 * (MetadataVersion.LATEST_PRODUCTION of that release: 3.3-IV3 = 7 ... 4.2-IV1 = 29;
 * server-common/.../MetadataVersion.java). A KRaft cluster always has it finalized.
 */
export const METADATA_VERSION_LEVEL: Readonly<Record<string, number>> = {
  '3.3': 7,
  '3.4': 8,
  '3.5': 11,
  '3.6': 14,
  '3.7': 19,
  '3.8': 20,
  '3.9': 21,
  '4.0': 25,
  '4.1': 27,
  '4.2': 29,
};

/** The releases the table knows, by mode (oldest first). */
export function knownReleases(mode: KafkaMode): string[] {
  const prefix = mode === 'kraft' ? 'kraft-broker-' : 'zk-';
  return Object.keys(API_VERSIONS_BY_RELEASE)
    .filter((k) => k.startsWith(prefix))
    .map((k) => k.slice(prefix.length));
}

export const NEWEST_RELEASE = knownReleases('kraft').at(-1)!;

function featuresOf(version: string, mode: KafkaMode): ApiVersionsFeatures {
  // ZooKeeper mode: no finalized metadata.version (it exists only in KRaft, KIP-778); Kafka
  // answers an epoch of -1 when no features are finalized (FinalizedFeatureCache empty).
  if (mode === 'zookeeper') return { supportedFeatures: [], finalizedFeaturesEpoch: -1, finalizedFeatures: [], zkMigrationReady: false };
  const level = METADATA_VERSION_LEVEL[version];
  const major = Number(version.split('.')[0]);
  const minor = Number(version.split('.')[1]);
  const atLeast = (ma: number, mi: number): boolean => major > ma || (major === ma && minor >= mi);
  const supported = [
    // 4.0 raised the oldest metadata.version it supports to 3.3-IV3 (KIP-1012 / KIP-896).
    { name: 'metadata.version', minVersion: atLeast(4, 0) ? 7 : 1, maxVersion: level },
    ...(atLeast(3, 9) ? [{ name: 'kraft.version', minVersion: 0, maxVersion: 1 }] : []),
    ...(atLeast(4, 0)
      ? [
          { name: 'group.version', minVersion: 0, maxVersion: 1 },
          { name: 'transaction.version', minVersion: 0, maxVersion: 2 },
        ]
      : []),
  ].sort((a, b) => (a.name < b.name ? -1 : 1));
  return {
    supportedFeatures: supported,
    finalizedFeaturesEpoch: 1,
    finalizedFeatures: [{ name: 'metadata.version', maxVersionLevel: level, minVersionLevel: level }],
    zkMigrationReady: false,
  };
}

/**
 * The release `version` in `mode` (default: KRaft where the table has it, ZooKeeper otherwise).
 * Throws a RangeError naming the releases known when the table has no such release.
 */
export function kafkaRelease(version: string = NEWEST_RELEASE, mode?: KafkaMode): KafkaRelease {
  const m: KafkaMode = mode ?? (knownReleases('kraft').includes(version) ? 'kraft' : 'zookeeper');
  const tableKey = `${m === 'kraft' ? 'kraft-broker' : 'zk'}-${version}`;
  const apis = API_VERSIONS_BY_RELEASE[tableKey];
  if (!apis) {
    throw new RangeError(
      `no Kafka ${version} in ${m === 'kraft' ? 'KRaft' : 'ZooKeeper'} mode: known are ZooKeeper ${knownReleases('zookeeper').join(', ')} and KRaft ${knownReleases('kraft').join(', ')}`,
    );
  }
  const ranges = new Map<number, readonly [number, number]>();
  for (const [key, min, max] of Object.values(apis)) ranges.set(key, [min, max]);
  return { version, mode: m, tableKey, ranges, features: featuresOf(version, m) };
}

/**
 * The versions of `apiKey` a broker of `release` serves here: the release's range cut to the
 * handler's; null when the release has no such API or they do not overlap.
 */
export function servedRange(release: KafkaRelease, apiKey: number, handler: readonly [number, number]): readonly [number, number] | null {
  const r = release.ranges.get(apiKey);
  if (!r) return null;
  const min = Math.max(r[0], handler[0]);
  const max = Math.min(r[1], handler[1]);
  return min <= max ? [min, max] : null;
}
