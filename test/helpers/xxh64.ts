/**
 * XXH64 (seed 0) in plain JavaScript, straight from the specification, to
 * check the checksum the addon writes into the index container. Slow (BigInt)
 * but only used on small test buffers.
 */
const MASK = (1n << 64n) - 1n;
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;

const rotl = (x: bigint, r: bigint) => ((x << r) | (x >> (64n - r))) & MASK;
const mul = (a: bigint, b: bigint) => (a * b) & MASK;
const round = (acc: bigint, input: bigint) => mul(rotl((acc + mul(input, P2)) & MASK, 31n), P1);
const merge = (acc: bigint, v: bigint) => (mul(acc ^ round(0n, v), P1) + P4) & MASK;

export function xxh64(data: Uint8Array): bigint {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const u64 = (at: number) => view.getBigUint64(at, true);
  let p = 0;
  let h: bigint;
  if (data.length >= 32) {
    let v1 = (P1 + P2) & MASK;
    let v2 = P2;
    let v3 = 0n;
    let v4 = (0n - P1) & MASK;
    for (; p + 32 <= data.length; p += 32) {
      v1 = round(v1, u64(p));
      v2 = round(v2, u64(p + 8));
      v3 = round(v3, u64(p + 16));
      v4 = round(v4, u64(p + 24));
    }
    h = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & MASK;
    h = merge(merge(merge(merge(h, v1), v2), v3), v4);
  } else {
    h = P5;
  }
  h = (h + BigInt(data.length)) & MASK;
  for (; p + 8 <= data.length; p += 8) h = (mul(rotl(h ^ round(0n, u64(p)), 27n), P1) + P4) & MASK;
  if (p + 4 <= data.length) {
    h = (mul(rotl(h ^ mul(BigInt(view.getUint32(p, true)), P1), 23n), P2) + P3) & MASK;
    p += 4;
  }
  for (; p < data.length; p++) h = mul(rotl(h ^ mul(BigInt(data[p]!), P5), 11n), P1);
  h = mul(h ^ (h >> 33n), P2);
  h = mul(h ^ (h >> 29n), P3);
  return h ^ (h >> 32n);
}
