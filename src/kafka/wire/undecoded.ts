// An API whose answer the connection's parser does not decode: it keeps the bytes (a
// WireReader) and reads only the top-level error code, for the transport's metrics label. The
// caller decodes the answer afterwards, in slices, outside the socket's callback (slices.ts).
import { createAPI } from '@platformatic/kafka';
import { WireReader } from './reader.js';
import { payloadOf } from './writer.js';

export interface UndecodedAnswer {
  errorCode: number;
  answer: WireReader;
}

/**
 * `apiKey`/`apiVersion` with a pre-encoded request body. Only for answers that open with
 * throttle_time_ms INT32 then error_code INT16 (DescribeLogDirs v4, ListPartitionReassignments v0).
 */
export function undecodedApi(apiKey: number, apiVersion: number) {
  return createAPI<[body: Buffer], UndecodedAnswer>(apiKey, apiVersion, payloadOf, (_correlationId, _apiKey, _apiVersion, reader) => {
    const answer = WireReader.fromClientReader(reader);
    return { errorCode: answer.buf.readInt16BE(answer.pos + 4), answer }; // after throttle_time_ms
  });
}
