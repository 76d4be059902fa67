// The out-of-range guard (issue 29): every simulator broker records a request outside the
// ranges of the release it answers as (Simulator.outOfRange; it closes the connection, as Kafka
// does). A test that drives the gateway calls this at its end: it fails if the gateway sent one.
import assert from 'node:assert/strict';
import type { Simulator } from '../../src/sim/index.js';

export function assertNoRequestOutsideRelease(sim: Simulator): void {
  const seen = sim.outOfRange.map(
    (r) =>
      `${r.api ?? `key ${r.apiKey}`} v${r.version} to broker ${r.brokerId} (accepted: ${r.accepted ? `v${r.accepted[0]}-v${r.accepted[1]}` : 'none'})`,
  );
  assert.deepEqual(seen, [], `requests outside Kafka ${sim.release.version} (${sim.release.mode})'s ranges`);
}
