// CRC-32C (Castagnoli) of a byte range, as record batch v2 carries it (over attributes..end).
// Ours rather than the client's `crc32c`: that one takes a whole buffer, and its native binding
// copies a Buffer argument into a new Uint8Array first; a state write of 100,000 partitions
// checksums ~14 MB, which is computed here in place, over the request's own bytes.
// Slice-by-8 (eight tables, eight bytes per step): ~4x the byte-at-a-time loop in V8.

const POLY = 0x82f63b78; // reversed Castagnoli polynomial

const TABLES: Uint32Array = (() => {
  const t = new Uint32Array(8 * 256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
    t[i] = c >>> 0;
  }
  for (let i = 0; i < 256; i++) for (let k = 1; k < 8; k++) t[k * 256 + i] = (t[(k - 1) * 256 + i] >>> 8) ^ t[t[(k - 1) * 256 + i] & 0xff];
  return t;
})();

/** CRC-32C of buf[start, end). */
export function crc32c(buf: Uint8Array, start = 0, end = buf.length): number {
  const t = TABLES;
  let crc = 0xffffffff;
  let i = start;
  for (; i + 8 <= end; i += 8) {
    const lo = (crc ^ (buf[i] | (buf[i + 1] << 8) | (buf[i + 2] << 16) | (buf[i + 3] << 24))) >>> 0;
    crc =
      t[7 * 256 + (lo & 0xff)] ^
      t[6 * 256 + ((lo >>> 8) & 0xff)] ^
      t[5 * 256 + ((lo >>> 16) & 0xff)] ^
      t[4 * 256 + (lo >>> 24)] ^
      t[3 * 256 + buf[i + 4]] ^
      t[2 * 256 + buf[i + 5]] ^
      t[256 + buf[i + 6]] ^
      t[buf[i + 7]];
  }
  for (; i < end; i++) crc = t[(crc ^ buf[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
