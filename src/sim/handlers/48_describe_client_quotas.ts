// DescribeClientQuotas (48), v0-v1. Served by any broker from its metadata image.
//
// Filters as ClientQuotasImage.describe: components of entity type user, client-id or ip
// with match type EXACT (0, match = the name), DEFAULT (1, match null = the default entity)
// or SPECIFIED (2, match null = any name, the default included); `strict` also drops
// entities that have entity types the filter does not mention. No components: every
// entity, or none when strict. Bad filters fail the whole request with entries null:
// empty type, a type twice, a match string with DEFAULT/SPECIFIED or none with EXACT,
// an unknown match type, ip mixed with user/client-id → INVALID_REQUEST (42); a type
// other than user/client-id/ip → UNSUPPORTED_VERSION (35) "Unsupported entity type X".
// Each entry lists its entity client-id before user (Kafka's HashMap order) and every
// configured key (producer_byte_rate, consumer_byte_rate, request_percentage,
// controller_mutation_rate; connection_creation_rate for ip entities, which stand alone).
// Per-version notes: v1 is v0 made flexible. ZooKeeper mode answers the same.
import {
  DescribeClientQuotasRequestSchema,
  DescribeClientQuotasResponseSchema,
  type DescribeClientQuotasRequest,
  type DescribeClientQuotasResponse,
} from '../protocol/messages.generated.js';
import { kafkaEntityComponents } from '../quotas.js';
import { defineHandler } from './types.js';

export const describeClientQuotasHandler = defineHandler<DescribeClientQuotasRequest, DescribeClientQuotasResponse>({
  apiKey: 48,
  name: 'DescribeClientQuotas',
  request: DescribeClientQuotasRequestSchema,
  response: DescribeClientQuotasResponseSchema,
  handle(ctx, req) {
    const described = ctx.runtime.clientQuotas.describe(req.components, req.strict);
    if (!described.ok) {
      return { throttleTimeMs: 0, errorCode: described.errorCode, errorMessage: described.message, entries: null };
    }
    return {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      entries: described.entries.map((e) => ({
        entity: kafkaEntityComponents(e.entity),
        values: Object.entries(e.values).map(([key, value]) => ({ key, value: value })),
      })),
    };
  },
});
