// Version negotiation (issue 29): per broker connection, the broker's ApiVersions answer (sent
// once per connection, v3: every release from 2.4 has it), and for each API the highest version
// both the broker and the gateway speak. The gateway speaks, per API, from the version Kafka 2.8
// (its floor) has up to the newest it knows; a request is never sent outside the broker's range:
// when the two ranges do not meet, the call fails with UNSUPPORTED_VERSION (35) naming the API
// and both ranges.
import { apiVersionsV3, ResponseError, type Connection } from '@platformatic/kafka';
import { KafkaRequestError } from '../errors.js';
import { ERROR_CODES, kafkaErrorInfo } from '../errors-map.js';

/** An API the gateway sends: its key and the versions the gateway's module speaks. */
export interface GatewayApi {
  readonly name: string;
  readonly key: number;
  readonly min: number;
  readonly max: number;
}

/**
 * Every API the gateway sends, with the versions it speaks. `min` is the newest version Kafka 2.8
 * (the floor) accepts; `max` the newest version the module implements (no higher than what Kafka
 * 4.2 accepts). test/kafka/negotiation.test.ts checks each against the release table: every
 * release from 2.8 to 4.2 meets each range.
 */
export const GATEWAY_APIS = {
  Produce: { name: 'Produce', key: 0, min: 9, max: 13 },
  Fetch: { name: 'Fetch', key: 1, min: 12, max: 18 },
  ListOffsets: { name: 'ListOffsets', key: 2, min: 6, max: 11 },
  Metadata: { name: 'Metadata', key: 3, min: 11, max: 13 },
  CreateTopics: { name: 'CreateTopics', key: 19, min: 7, max: 7 },
  DeleteTopics: { name: 'DeleteTopics', key: 20, min: 6, max: 6 },
  DescribeConfigs: { name: 'DescribeConfigs', key: 32, min: 4, max: 4 },
  AlterReplicaLogDirs: { name: 'AlterReplicaLogDirs', key: 34, min: 2, max: 2 },
  DescribeLogDirs: { name: 'DescribeLogDirs', key: 35, min: 2, max: 4 },
  CreatePartitions: { name: 'CreatePartitions', key: 37, min: 3, max: 3 },
  IncrementalAlterConfigs: { name: 'IncrementalAlterConfigs', key: 44, min: 1, max: 1 },
  AlterPartitionReassignments: { name: 'AlterPartitionReassignments', key: 45, min: 0, max: 1 },
  ListPartitionReassignments: { name: 'ListPartitionReassignments', key: 46, min: 0, max: 0 },
  DescribeClientQuotas: { name: 'DescribeClientQuotas', key: 48, min: 1, max: 1 },
  AlterClientQuotas: { name: 'AlterClientQuotas', key: 49, min: 1, max: 1 },
  DescribeCluster: { name: 'DescribeCluster', key: 60, min: 0, max: 2 },
  ElectLeaders: { name: 'ElectLeaders', key: 43, min: 2, max: 2 },
} as const satisfies Record<string, GatewayApi>;

/** What a broker's ApiVersions answer says: its ranges by API key, and its features (KIP-584). */
export interface BrokerApiVersions {
  readonly ranges: ReadonlyMap<number, readonly [min: number, max: number]>;
  readonly supportedFeatures: readonly { name: string; minVersion: number; maxVersion: number }[];
  readonly finalizedFeatures: readonly { name: string; minVersionLevel: number; maxVersionLevel: number }[];
}

/** The highest version of `api` both sides speak, or null when their ranges do not meet (or the broker lacks the API). */
export function negotiate(api: GatewayApi, broker: BrokerApiVersions): number | null {
  const r = broker.ranges.get(api.key);
  if (!r) return null;
  const v = Math.min(api.max, r[1]);
  return v >= Math.max(api.min, r[0]) ? v : null;
}

/** The error of a call whose API the broker and the gateway speak no common version of. */
export function unsupportedApiError(api: GatewayApi, broker: BrokerApiVersions): KafkaRequestError {
  const r = broker.ranges.get(api.key);
  const has = r ? `accepts ${api.name} v${r[0]}-v${r[1]}` : `does not offer ${api.name}`;
  return new KafkaRequestError(
    'kafka',
    kafkaErrorInfo(
      ERROR_CODES.UNSUPPORTED_VERSION,
      `The broker ${has}; the gateway speaks v${api.min}-v${api.max} (Kafka 2.8 or later): nothing was sent`,
    ),
  );
}

const SOFTWARE_NAME = 'kafka-gateway';
const SOFTWARE_VERSION = '0.1.0';

/** Each connection's ApiVersions answer, asked once (a new connection asks again: a broker may have been upgraded). */
const answers = new WeakMap<Connection, Promise<BrokerApiVersions>>();

/** The ApiVersions answer of the broker behind `conn` (asked on first use, then kept with the connection). */
export function brokerApiVersions(conn: Connection): Promise<BrokerApiVersions> {
  let answer = answers.get(conn);
  if (!answer) {
    answer = apiVersionsV3.api.async(conn, SOFTWARE_NAME, SOFTWARE_VERSION).then(
      (res) => ({
        ranges: new Map(res.apiKeys.map((k) => [k.apiKey, [k.minVersion, k.maxVersion] as const])),
        supportedFeatures: res.supportedFeatures ?? [],
        finalizedFeatures: res.finalizedFeatures ?? [],
      }),
      (err: unknown) => {
        answers.delete(conn); // asked again next time (or on the next connection)
        // A broker that answers with an error code (UNSUPPORTED_VERSION from one older than 2.4):
        // not a ResponseError, which the transport would take for the answer of the request this
        // negotiation was for (in-band item errors).
        if (err instanceof ResponseError) {
          const code = (err.response as { errorCode?: number } | undefined)?.errorCode ?? ERROR_CODES.UNSUPPORTED_VERSION;
          throw new KafkaRequestError(
            'kafka',
            kafkaErrorInfo(code, 'The broker refused ApiVersions v3 (Kafka older than 2.4?): nothing else was sent'),
          );
        }
        throw err;
      },
    );
    answers.set(conn, answer);
  }
  return answer;
}

/** The version to send `api` at on `conn`; throws unsupportedApiError when there is none. */
export async function versionFor(conn: Connection, api: GatewayApi): Promise<number> {
  const broker = await brokerApiVersions(conn);
  const v = negotiate(api, broker);
  if (v === null) throw unsupportedApiError(api, broker);
  return v;
}

/**
 * `api`'s per-version request modules (or anything per version), picked by the negotiated
 * version: `byVersion[v]` for v from api.min to api.max.
 */
export async function pick<T>(
  conn: Connection,
  api: GatewayApi,
  byVersion: Readonly<Record<number, T>>,
): Promise<{ version: number; module: T }> {
  const version = await versionFor(conn, api);
  return { version, module: byVersion[version] };
}

/**
 * `module` (a request bound to the one version of `api` the gateway speaks), once the broker
 * behind `conn` is known to accept that version; else unsupportedApiError, nothing sent.
 */
export async function at<T>(conn: Connection, api: GatewayApi, module: T): Promise<T> {
  await versionFor(conn, api);
  return module;
}
