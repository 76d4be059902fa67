// The shape of a Kafka message schema, as transcribed from Kafka's JSON specs by
// scripts/gen-protocol.ts. Version ranges are inclusive [min, max]; 32767 means "and later".
export type VersionRange = readonly [number, number];

export type PrimitiveType =
  'bool' | 'int8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'float64' | 'string' | 'bytes' | 'records' | 'uuid';

export interface FieldSchema {
  /** camelCase field name (Kafka's spec name with a lower-case first letter). */
  n: string;
  /** A primitive, 'struct', or either prefixed with '[]' for an array. */
  t: string;
  /** Versions in which the field exists. */
  v: VersionRange;
  /** Versions in which it may be null. */
  nv?: VersionRange;
  /** Versions in which it is a tagged field, with its tag. */
  tv?: VersionRange;
  tag?: number;
  /** Field-level override of the message's flexible versions (RequestHeader.ClientId). */
  fv?: VersionRange | null;
  /** Default as written in the spec. */
  d?: string;
  f?: readonly FieldSchema[];
}

export interface MessageSchema {
  name: string;
  apiKey: number;
  valid: VersionRange;
  flexible: VersionRange | null;
  fields: readonly FieldSchema[];
}

export function inRange(r: VersionRange | null | undefined, version: number): boolean {
  return !!r && version >= r[0] && version <= r[1];
}
