// The gateway's sizes-and-placement loop from before it had its own DescribeLogDirs decoder,
// over @platformatic/kafka's parsed answer: the reference the decoder's tests compare with and
// the baseline bench/kafka-decode.ts times.
import type { describeLogDirsV4 } from '@platformatic/kafka';
import { replicaKey } from '../../src/kafka/apis/describe-log-dirs-v4.js';

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
