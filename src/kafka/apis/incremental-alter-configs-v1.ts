// IncrementalAlterConfigs v1: writes replication throttles. There is no AlterConfigs here:
// legacy AlterConfigs replaces *every* dynamic config of a resource, so it would wipe
// throttles (and anything else) other people set. IncrementalAlterConfigs touches only the
// named keys. Routed as src/kafka/apis/config-resources.ts says.
/*
  IncrementalAlterConfigs Request (Version: 1) => [resources] validate_only TAG_BUFFER
    resources => resource_type resource_name [configs] TAG_BUFFER
      resource_type => INT8
      resource_name => COMPACT_STRING
      configs => name config_operation value TAG_BUFFER
        name => COMPACT_STRING
        config_operation => INT8
        value => COMPACT_NULLABLE_STRING
    validate_only => BOOLEAN

  IncrementalAlterConfigs Response (Version: 1) => throttle_time_ms [responses] TAG_BUFFER
    throttle_time_ms => INT32
    responses => error_code error_message resource_type resource_name TAG_BUFFER
      error_code => INT16
      error_message => COMPACT_NULLABLE_STRING
      resource_type => INT8
      resource_name => COMPACT_STRING
*/
import { incrementalAlterConfigsV1 } from '@platformatic/kafka';
import { ERROR_CODES, kafkaErrorInfo } from '../errors-map.js';
import type { RequestSender } from '../request.js';
import { byDestination, failAll, firstError, RESOURCE_TYPE, type ConfigAlteration, type ConfigResult } from './config-resources.js';
import { at, GATEWAY_APIS } from './versions.js';

const OP_CODES = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;

/**
 * IncrementalAlterConfigs; each resource is applied atomically by Kafka and answered on
 * its own (one failing resource does not undo another).
 */
export async function incrementalAlterConfigs(
  kafka: RequestSender,
  alterations: ConfigAlteration[],
  validateOnly = false,
): Promise<ConfigResult<null>[]> {
  const nonEmpty = alterations.filter((a) => a.ops.length > 0);
  const groups = byDestination(nonEmpty);
  const results = await Promise.all(
    groups.map(async ({ target, items }): Promise<ConfigResult<null>[]> => {
      const kind = items[0].kind;
      try {
        const res = await kafka.sendRequest(
          'IncrementalAlterConfigs',
          target,
          async (conn) =>
            (await at(conn, GATEWAY_APIS.IncrementalAlterConfigs, incrementalAlterConfigsV1.api)).async(
              conn,
              items.map((a) => ({
                resourceType: RESOURCE_TYPE[a.kind],
                resourceName: a.name,
                configs: a.ops.map((o) =>
                  o.op === 'DELETE'
                    ? { name: o.name, configOperation: OP_CODES.DELETE }
                    : { name: o.name, configOperation: OP_CODES[o.op], value: o.value },
                ),
              })),
              validateOnly,
            ),
          (r) => firstError(r.responses.map((x) => x.errorCode)),
        );
        return items.map((a) => {
          const r = res.responses.find((x) => x.resourceName === a.name && x.resourceType === RESOURCE_TYPE[a.kind]);
          if (!r)
            return {
              kind: a.kind,
              name: a.name,
              ok: false as const,
              error: kafkaErrorInfo(-1, 'No result for this resource in the IncrementalAlterConfigs response'),
            };
          // The response's throttle time goes with a 89, for the 429's Retry-After.
          const throttle = r.errorCode === ERROR_CODES.THROTTLING_QUOTA_EXCEEDED ? res.throttleTimeMs : undefined;
          if (r.errorCode !== 0)
            return { kind: a.kind, name: a.name, ok: false as const, error: kafkaErrorInfo(r.errorCode, r.errorMessage, throttle) };
          return { kind: a.kind, name: a.name, ok: true as const, value: null };
        });
      } catch (err) {
        return failAll(
          kind,
          items.map((i) => i.name),
          err,
        );
      }
    }),
  );
  return results.flat();
}
