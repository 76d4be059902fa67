// ApiVersions (18), v0-v4.
//
// Advertises the ranges of the release the simulator answers as (runtime.release, from Kafka's
// table in ../releases/), restricted to the API keys this simulator implements and cut to the
// versions each handler serves (runtime.apiRanges), so a client negotiates only what we can answer.
// - v0-v2: non-flexible. v3+: flexible, carries client software name/version.
// - A request in a version we do not know is answered in v0 with UNSUPPORTED_VERSION
//   (35) and only ApiVersions' own version range (KIP-511: ApiVersionsRequest.getErrorResponse),
//   and the response header is always v0.
// - v3+: a client software name or version that is empty or does not match Kafka's pattern
//   ([a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?) → INVALID_REQUEST (42) and no API keys
//   (ApiVersionsRequest.isValid). v3+ also reports the release's features (KIP-584): in KRaft
//   mode metadata.version supported up to the release's level and finalized there (plus
//   kraft.version from 3.9, group.version and transaction.version from 4.0); in ZooKeeper mode
//   none, finalized epoch -1 (../releases/release.ts).
// - ApiVersions is allowed before SASL authentication.
import {
  ApiVersionsRequestSchema,
  ApiVersionsResponseSchema,
  type ApiVersionsRequest,
  type ApiVersionsResponse,
} from '../protocol/messages.generated.js';
import { defineHandler, type ApiHandler, type SimulatorRuntime } from './types.js';

const UNSUPPORTED_VERSION = 35;
const INVALID_REQUEST = 42;
/** ApiVersionsRequest.SOFTWARE_NAME_VERSION_PATTERN */
const SOFTWARE_PATTERN = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;
const validSoftware = (s: string | undefined | null): boolean => typeof s === 'string' && SOFTWARE_PATTERN.test(s);
export function apiVersionsHandler(): ApiHandler<ApiVersionsRequest, ApiVersionsResponse> {
  const list = (runtime: SimulatorRuntime): ApiVersionsResponse['apiKeys'] =>
    [...runtime.apiRanges]
      .map(([apiKey, [minVersion, maxVersion]]) => ({ apiKey, minVersion, maxVersion }))
      .sort((a, b) => a.apiKey - b.apiKey);
  return defineHandler({
    apiKey: 18,
    name: 'ApiVersions',
    request: ApiVersionsRequestSchema,
    response: ApiVersionsResponseSchema,
    allowedBeforeAuthentication: true,
    unsupportedVersionResponse: (runtime) => ({ errorCode: UNSUPPORTED_VERSION, apiKeys: list(runtime).filter((k) => k.apiKey === 18) }),
    handle: (ctx, req) => {
      if (ctx.version >= 3 && !(validSoftware(req.clientSoftwareName) && validSoftware(req.clientSoftwareVersion))) {
        return { errorCode: INVALID_REQUEST, apiKeys: [], throttleTimeMs: 0 };
      }
      return { errorCode: 0, apiKeys: list(ctx.runtime), throttleTimeMs: 0, ...(ctx.version >= 3 && ctx.runtime.release.features) };
    },
  });
}
