// APIs whose answer the connection's parser does not decode: it keeps the bytes (a
// WireReader). The caller decodes the answer afterwards, in slices, outside the socket's
// callback (slices.ts).
import { createAPI } from '@platformatic/kafka';
import { WireReader } from './reader.js';
import { payloadOf } from './writer.js';

export interface UndecodedAnswer {
  errorCode: number;
  answer: WireReader;
}

/**
 * `apiKey`/`apiVersion` with a pre-encoded request body; reads only the top-level error code,
 * for the transport's metrics label. Only for answers that open with throttle_time_ms INT32
 * then error_code INT16 (DescribeLogDirs v4, ListPartitionReassignments v0).
 */
export function undecodedApi(apiKey: number, apiVersion: number) {
  return createAPI<[body: Buffer], UndecodedAnswer>(apiKey, apiVersion, payloadOf, (_correlationId, _apiKey, _apiVersion, reader) => {
    const answer = WireReader.fromClientReader(reader);
    return { errorCode: answer.buf.readInt16BE(answer.pos + 4), answer }; // after throttle_time_ms
  });
}

/**
 * `apiKey`/`apiVersion` with a pre-encoded request body, the answer's bytes handed back as they
 * are: for an answer with no top-level error code (Metadata v12), whose label needs it decoded.
 */
export function rawAnswerApi(apiKey: number, apiVersion: number) {
  return createAPI<[body: Buffer], WireReader>(apiKey, apiVersion, payloadOf, (_correlationId, _apiKey, _apiVersion, reader) =>
    WireReader.fromClientReader(reader),
  );
}
