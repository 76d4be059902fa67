// A reassignment held by the health interlocks (issue 30): what holds it, how far it is from
// resuming by itself, the target brokers that are gone and how to re-plan. Rows of the
// reassignment page's <dl class="kv">; nothing when it is not held.
import type { Reassignment } from '../../client/api.js';

const KIND_TEXT: Record<string, string> = {
  offline: 'offline partitions (no leader)',
  underReplicated: 'under-replicated partitions outside any move',
  underMinIsr: 'partitions under min.insync.replicas',
  brokerGone: 'brokers gone from the cluster',
};

export function HeldRows({ r }: { r: Reassignment }) {
  const h = r.hold;
  if (!h) return null;
  return (
    <>
      <dt>Held</dt>
      <dd data-testid="hold">
        <span role="status">
          No new move starts since {new Date(h.since).toLocaleTimeString()}; moves in flight finish. It resumes by itself after{' '}
          {h.resumeAfterPasses} healthy reconcile pass(es) in a row ({h.healthyPasses} so far)
          {r.paused ? ', and then stays paused until you resume it' : ''}.
        </span>
        <ul>
          {h.reasons.map((x) => (
            <li key={x.kind}>
              {x.count} {KIND_TEXT[x.kind] ?? x.kind}
              {x.examples.length > 0 && (
                <span class="note">
                  {' '}
                  ({x.examples.join(', ')}
                  {x.count > x.examples.length ? ', …' : ''})
                </span>
              )}
            </li>
          ))}
          {(h.targetsGone ?? []).map((t) => (
            <li key={`gone-${t.broker}`}>
              target broker {t.broker} is gone: {t.partitions} open move(s) go to it <span class="note">({t.examples.join(', ')})</span>
            </li>
          ))}
        </ul>
        {h.replan && (
          <p class="note" data-testid="replan">
            {h.replan}
          </p>
        )}
      </dd>
    </>
  );
}

/** GET /brokers' under-replicated counts of one broker (absent on gateways without ISR reads). */
export interface BrokerHealth {
  underReplicated: number;
  outOfSyncReplicas: number;
}

export function brokerHealth(b: { underReplicated?: number; outOfSyncReplicas?: number }): BrokerHealth | null {
  return b.underReplicated === undefined && b.outOfSyncReplicas === undefined
    ? null
    : { underReplicated: b.underReplicated ?? 0, outOfSyncReplicas: b.outOfSyncReplicas ?? 0 };
}

export function BrokerHealthCell({ health }: { health: BrokerHealth | null }) {
  if (!health) return <span>–</span>;
  const bad = health.underReplicated > 0 || health.outOfSyncReplicas > 0;
  return (
    <span class={bad ? 'stalled' : undefined}>
      {health.underReplicated} / {health.outOfSyncReplicas}
    </span>
  );
}
