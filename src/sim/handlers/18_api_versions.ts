// ApiVersions (18), v0-v4.
//
// Advertises exactly the API keys this simulator implements, each with the version
// range its handler serves, so a client negotiates only what we can answer.
// - v0-v2: non-flexible. v3+: flexible, carries client software name/version.
// - A request in a version we do not know is answered in v0 with UNSUPPORTED_VERSION
//   (35) and the full list (KIP-511), and the response header is always v0.
// - ApiVersions is allowed before SASL authentication.
import { ApiVersionsRequestSchema, ApiVersionsResponseSchema, type ApiVersionsRequest, type ApiVersionsResponse } from '../protocol/messages.generated.js';
import { defineHandler, type ApiHandler } from './types.js';

const UNSUPPORTED_VERSION = 35;

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
    unsupportedVersionResponse: () => ({ errorCode: UNSUPPORTED_VERSION, apiKeys: list() }),
    handle: () => ({ errorCode: 0, apiKeys: list(), throttleTimeMs: 0 }),
  });
}
