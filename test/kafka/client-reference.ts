// What the gateway built from @platformatic/kafka's parsed answers before it had its own
// decoders (DescribeLogDirs v4: the sizes-and-placement loop; Metadata v12: describePartitions'
// adapter): the references the decoders' tests compare with and the baselines
// bench/kafka-decode.ts times.
import type { describeLogDirsV4, metadataV12 } from '@platformatic/kafka';
import { replicaKey } from '../../src/kafka/apis/describe-log-dirs.js';

type ClientAnswer = ReturnType<typeof describeLogDirsV4.parseResponse>;

export function sizesFromClientAnswer(res: ClientAnswer) {
  const sizes = new Map<string, number>();
  const dirs: { dir: string; errorCode: number }[] = [];
  const placement = new Map<string, { dir: string | null; futureDir: string | null }>();
  for (const dir of res.results) {
    dirs.push({ dir: dir.logDir, errorCode: dir.errorCode });
    if (dir.errorCode !== 0) continue;
    for (const t of dir.topics) {
      for (const p of t.partitions) {
        const at = placement.get(replicaKey(t.name, p.partitionIndex)) ?? { dir: null, futureDir: null };
        placement.set(replicaKey(t.name, p.partitionIndex), p.isFutureKey ? { ...at, futureDir: dir.logDir } : { ...at, dir: dir.logDir });
        if (p.isFutureKey) continue;
        const k = replicaKey(t.name, p.partitionIndex);
        sizes.set(k, Math.max(sizes.get(k) ?? 0, Number(p.partitionSize)));
      }
    }
  }
  return { sizes, dirs, placement };
}

type ClientMetadata = ReturnType<typeof metadataV12.parseResponse>;

/** What describePartitions built from the client's parsed Metadata v12 answer before it had its own decoder. */
export function placementFromClientAnswer(res: ClientMetadata) {
  return res.topics
    .filter((t) => t.errorCode === 0 && t.name != null)
    .map((t) => ({
      name: t.name as string,
      partitions: t.partitions
        .map((p) => ({
          partition: p.partitionIndex,
          leader: p.leaderId,
          replicas: [...p.replicaNodes],
          isr: [...p.isrNodes],
          offlineReplicas: [...p.offlineReplicas],
        }))
        .sort((a, b) => a.partition - b.partition),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
