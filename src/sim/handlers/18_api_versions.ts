// ApiVersions (18), v0-v4.
//
// Advertises exactly the API keys this simulator implements, each with the version
// range its handler serves, so a client negotiates only what we can answer.
// - v0-v2: non-flexible. v3+: flexible, carries client software name/version.
// - A request in a version we do not know is answered in v0 with UNSUPPORTED_VERSION
//   (35) and only ApiVersions' own version range (KIP-511: ApiVersionsRequest.getErrorResponse),
//   and the response header is always v0.
// - v3+: a client software name or version that is empty or does not match Kafka's pattern
//   ([a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?) → INVALID_REQUEST (42) and no API keys
//   (ApiVersionsRequest.isValid). v3+ also reports the features a KRaft 3.9 broker does:
//   metadata.version supported 1-21 and finalized at 21 (3.9-IV0), kraft.version 0-1.
// - ApiVersions is allowed before SASL authentication.
import { ApiVersionsRequestSchema, ApiVersionsResponseSchema, type ApiVersionsRequest, type ApiVersionsResponse } from '../protocol/messages.generated.js';
import { defineHandler, type ApiHandler } from './types.js';

const UNSUPPORTED_VERSION = 35;
const INVALID_REQUEST = 42;
/** ApiVersionsRequest.SOFTWARE_NAME_VERSION_PATTERN */
const SOFTWARE_PATTERN = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;
const validSoftware = (s: string | undefined | null): boolean => typeof s === 'string' && SOFTWARE_PATTERN.test(s);
/** What a KRaft broker on metadata.version 3.9-IV0 (feature level 21) reports at v3+. */
const FEATURES = {
  supportedFeatures: [
    { name: 'kraft.version', minVersion: 0, maxVersion: 1 },
    { name: 'metadata.version', minVersion: 1, maxVersion: 21 },
  ],
  finalizedFeaturesEpoch: 1,
  finalizedFeatures: [{ name: 'metadata.version', maxVersionLevel: 21, minVersionLevel: 21 }],
  zkMigrationReady: false,
};

export function apiVersionsHandler(all: () => readonly ApiHandler[]): ApiHandler<ApiVersionsRequest, ApiVersionsResponse> {
  const list = (): ApiVersionsResponse['apiKeys'] =>
    all()
      .map((h) => {
        const [minVersion, maxVersion] = h.versions ?? h.request.valid;
        return { apiKey: h.apiKey, minVersion, maxVersion };
      })
      .sort((a, b) => a.apiKey - b.apiKey);
  return defineHandler({
    apiKey: 18,
    name: 'ApiVersions',
    request: ApiVersionsRequestSchema,
    response: ApiVersionsResponseSchema,
    allowedBeforeAuthentication: true,
    unsupportedVersionResponse: () => ({ errorCode: UNSUPPORTED_VERSION, apiKeys: list().filter((k) => k.apiKey === 18) }),
    handle: (ctx, req) => {
      if (ctx.version >= 3 && !(validSoftware(req.clientSoftwareName) && validSoftware(req.clientSoftwareVersion))) {
        return { errorCode: INVALID_REQUEST, apiKeys: [], throttleTimeMs: 0 };
      }
      return { errorCode: 0, apiKeys: list(), throttleTimeMs: 0, ...(ctx.version >= 3 && FEATURES) };
    },
  });
}
