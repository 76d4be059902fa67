// Kafka topic ids: 16 random bytes, written as unpadded URL-safe base64 (Uuid.toString()).
import { randomBytes } from 'node:crypto';

export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

export function uuidFromBytes(bytes: Uint8Array): string {
  if (bytes.length !== 16) throw new RangeError(`a Kafka Uuid has 16 bytes, got ${bytes.length}`);
  return Buffer.from(bytes).toString('base64url');
}

/** Returns null when the string is not a valid 22-character Kafka Uuid. */
export function uuidToBytes(id: string): Buffer | null {
  if (!/^[A-Za-z0-9_-]{22}$/.test(id)) return null;
  const buf = Buffer.from(id, 'base64url');
  return buf.length === 16 ? buf : null;
}

/** Kafka's Uuid.randomUuid(): a v4 UUID whose string form never starts with '-' and is never zero. */
export function randomUuidBytes(source: () => Uint8Array = () => randomBytes(16)): Buffer {
  const b = Buffer.from(source());
  b[6] = (b[6] & 0x0f) | 0x40; // version 4 (never all-zero)
  b[8] = (b[8] & 0x3f) | 0x80; // IETF variant
  if (uuidFromBytes(b).startsWith('-')) b[0] ^= 0x80; // Kafka re-draws these; flipping is deterministic
  return b;
}

export function randomUuid(source?: () => Uint8Array): string {
  return uuidFromBytes(randomUuidBytes(source));
}
