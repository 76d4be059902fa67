// AlterClientQuotas (49), v0-v1. A controller request (KRaft brokers forward it, so any
// broker answers; ZooKeeper mode answers the same here).
//
// Each entry names an entity (user and/or client-id, name null = the default entity) and
// ops that set a key to a value or remove it (removing an unset key is fine). Results
// follow ClientQuotaControlManager (Kafka 4.0), all errors INVALID_REQUEST (42):
// - no components: "Invalid empty client quota entity"; an unknown type:
//   "Unhandled client quota entity type: X"; an empty name: "Empty user not supported";
//   a type given twice in one entity: the last name wins (the request's HashMap);
// - a key given twice, or the same entity in two entries: "Ignoring duplicate entity
//   ClientQuotaEntity(entries={client-id=c, user=u})" (for a repeated entity the first
//   entry's change still applies; one result per entity);
// - an unknown key: "Invalid configuration key X"; value <= 0: "Quota X must be greater
//   than 0"; a byte rate with a fraction: "X cannot be a fractional value."; an entity with
//   any bad op changes nothing. Other entities of the request still apply.
// validateOnly answers the same and changes nothing. A changed controller_mutation_rate
// applies from the next mutation request (the bucket keeps its tokens).
// - ip entities (name null = the default ip entity): only connection_creation_rate (an INT:
//   "Proposed value for connection_creation_rate is too large for an INT."); ip with user or
//   client-id: "Invalid quota entity combination, IP entity shouldnot be combined with User
//   or ClientId" (sic); a name that is no IP: "X is not a valid IP or resolvable host.".
// Deviations: ip quotas are stored and described but not enforced (no connection-rate
// limiting), and only IP literals and "localhost" count as resolvable (no DNS);
// NaN/infinite values are refused; results come in request order (Kafka: HashMap).
// Per-version notes: v1 is v0 made flexible.
import {
  AlterClientQuotasRequestSchema,
  AlterClientQuotasResponseSchema,
  type AlterClientQuotasRequest,
  type AlterClientQuotasResponse,
} from '../protocol/messages.generated.js';
import { defineHandler } from './types.js';

export const alterClientQuotasHandler = defineHandler<AlterClientQuotasRequest, AlterClientQuotasResponse>({
  apiKey: 49,
  name: 'AlterClientQuotas',
  request: AlterClientQuotasRequestSchema,
  response: AlterClientQuotasResponseSchema,
  handle(ctx, req) {
    const results = ctx.runtime.clientQuotas.alter(req.entries, req.validateOnly);
    return {
      throttleTimeMs: 0,
      entries: results.map((r) => ({ errorCode: r.errorCode, errorMessage: r.errorMessage, entity: r.entity })),
    };
  },
});
