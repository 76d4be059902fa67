// DescribeConfigs (32), v0-v4.
//
// Resources: TOPIC (2) → every topic config with its effective value and source
// (TOPIC_CONFIG for values set on the topic, DEFAULT_CONFIG otherwise); BROKER (4)
// with this broker's id → its dynamic and default configs, or with the empty name →
// the cluster-wide dynamic defaults. A broker id other than the receiving broker's →
// INVALID_REQUEST (42), as in Kafka's ConfigHelper ("Unexpected broker id ...").
// Unknown topic → UNKNOWN_TOPIC_OR_PARTITION (3). configuration_keys null = all.
// Per-version notes: v1 adds include_synonyms and config_source; v3 adds
// include_documentation and config_type; v4 is flexible.
import {
  DescribeConfigsRequestSchema,
  DescribeConfigsResponseSchema,
  type DescribeConfigsRequest,
  type DescribeConfigsResponse,
} from '../protocol/messages.generated.js';
import { KafkaError } from '../cluster/errors.js';
import { itemError } from './results.js';
import { defineHandler } from './types.js';
import { HEAVY_TOPICS } from '../request-turns.js';

const BROKER = 4;

export const describeConfigsHandler = defineHandler<DescribeConfigsRequest, DescribeConfigsResponse>({
  apiKey: 32,
  name: 'DescribeConfigs',
  request: DescribeConfigsRequestSchema,
  response: DescribeConfigsResponseSchema,
  // Many resources: each topic's configs, throttled-replica lists included (../request-turns.ts).
  heavy: (req) => req.resources.length > HEAVY_TOPICS,
  handle(ctx, req) {
    const { model } = ctx.runtime;
    const results = req.resources.map((r) => {
      const base = { resourceType: r.resourceType, resourceName: r.resourceName };
      try {
        if (r.resourceType === BROKER && r.resourceName !== '' && r.resourceName !== String(ctx.brokerId)) {
          throw new KafkaError(42, `Unexpected broker id, expected ${ctx.brokerId} or empty string, but received ${r.resourceName}`);
        }
        const entries = model.describeConfigs({ type: r.resourceType, name: r.resourceName }, r.configurationKeys);
        return {
          ...base,
          errorCode: 0,
          errorMessage: null,
          configs: entries.map((e) => ({
            name: e.name,
            value: e.value,
            readOnly: e.readOnly,
            isDefault: e.isDefault,
            configSource: e.source,
            isSensitive: e.isSensitive,
            synonyms: req.includeSynonyms ? e.synonyms : [],
            configType: e.configType,
            documentation: req.includeDocumentation ? e.documentation : null,
          })),
        };
      } catch (err) {
        if (!(err instanceof KafkaError)) throw err;
        return { ...base, ...itemError(err), configs: [] };
      }
    });
    return { throttleTimeMs: 0, results };
  },
});
