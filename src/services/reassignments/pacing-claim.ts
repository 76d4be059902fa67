// The record claim a PATCH or DELETE of a live reassignment holds while it reads and writes it.
import { isLive } from '../../reconcile/ownership.js';
import { pacingClaimResource } from '../../reconcile/pacer.js';
import { ClaimBusyError } from '../../state/fence.js';
import type { ServiceContext } from './types.js';

/**
 * Runs `fn` holding the record claim of a live record (pacer.ts recordClaimResource, the
 * pacer's claim too): `fn` reads the record after taking it, so a reconciler pass, a wave or
 * another PATCH/DELETE (any instance) is never written over, nor writes over what `fn`
 * writes. Not live: `fn` at once. A holder that died blocks at most its lease.
 */
export async function withPacingClaim<T>(ctx: ServiceContext, id: string, purpose: string, fn: () => Promise<T>): Promise<T> {
  const seen = ctx.d.store.view().reassignments.get(id) ?? (await ctx.d.store.refresh()).reassignments.get(id);
  if (!seen || !isLive(seen)) return fn();
  // A holder that died is taken over once we have seen its claim for a whole lease (claims.ts).
  const deadline = Date.now() + ctx.d.config.pacingLeaseMs + 2000;
  for (;;) {
    const claimed = await ctx.d.store.claim([pacingClaimResource(id)], {
      purpose: `${purpose} ${id}`,
      owner: ctx.d.config.instanceId,
      ttlMs: ctx.d.config.pacingLeaseMs,
    });
    if (claimed.granted) {
      try {
        // Every write fn makes is fenced by the claim: refused if it ends first (src/state/fence.ts).
        return await ctx.d.store.underClaim(claimed.claim, fn);
      } finally {
        await ctx.d.store.release(claimed.claim).catch(() => undefined);
      }
    }
    // Never written without the claim: the caller is told to try again (503, Retry-After).
    if (Date.now() > deadline) throw new ClaimBusyError(pacingClaimResource(id), Math.ceil(ctx.d.config.pacingLeaseMs / 1000));
    await new Promise((r) => setTimeout(r, 50));
  }
}
