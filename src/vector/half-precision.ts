/**
 * Vectors kept at half precision (IEEE 754 binary16, two bytes a dimension):
 * the embedded store's copy of each vector, from which the FAISS file is
 * derived. A 512-dimension vector takes 1 KiB instead of 2 KiB, and three of
 * them share a 4 KiB page where one float32 vector (2 KiB and a row header)
 * used a page alone: the vectors' table shrinks about threefold. A unit
 * vector's components lose nothing a ranking sees (an error of at most
 * 2^-12 of each component; docs/performance.md has the measured effect).
 */

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** One float as binary16 bits, rounded to nearest, ties to even; infinities and NaN kept. */
export function toHalfBits(value: number): number {
  f32[0] = value;
  const bits = u32[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  let mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa !== 0 ? 0x200 : 0);
  // The exponent re-biased from 127 to 15.
  const half = exponent - 112;
  if (half >= 0x1f) return sign | 0x7c00;
  if (half <= 0) {
    // Subnormal in binary16 (or zero): the implicit bit made explicit, then shifted down.
    if (half < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - half;
    const rounded = roundShift(mantissa, shift);
    return sign | rounded;
  }
  const rounded = roundShift(mantissa, 13);
  // A carry out of the mantissa moves into the exponent, as the bits are laid out.
  return sign | ((half << 10) + rounded);
}

/** `value >> shift`, rounded to nearest, ties to even. */
function roundShift(value: number, shift: number): number {
  const kept = value >>> shift;
  const rest = value & ((1 << shift) - 1);
  const halfway = 1 << (shift - 1);
  return rest > halfway || (rest === halfway && (kept & 1) === 1) ? kept + 1 : kept;
}

/** binary16 bits as a float. */
export function fromHalfBits(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa !== 0 ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

/** Every binary16 value as a float, by its bits: decoding is a lookup (256 KiB, made on first use). */
let halfValues: Float32Array | undefined;

function halfTable(): Float32Array {
  if (!halfValues) {
    halfValues = new Float32Array(0x10000);
    for (let bits = 0; bits < 0x10000; bits++) halfValues[bits] = fromHalfBits(bits);
  }
  return halfValues;
}

/** The first byte of a vector stored at half precision: a float32 vector's blob has an even length, this one an odd. */
const HALF_TAG = 1;

/** A value's binary16 bits when binary16 holds it exactly (a component of a rounded vector), else undefined. */
export function exactHalfBits(value: number): number | undefined {
  const bits = toHalfBits(value);
  return halfTable()[bits] === value ? bits : undefined;
}

/** Whether every component survives binary16 unchanged (the vector was rounded already: `roundToHalf`). */
export function isHalfExact(vector: Float32Array): boolean {
  return vector.every((value) => exactHalfBits(value) !== undefined);
}

/**
 * The vector rounded to binary16 precision (a copy), where every component
 * fits binary16's range (a vector from an embedder that does not normalise,
 * with components past 65,504, is returned as it is).
 */
export function roundToHalf(vector: Float32Array): Float32Array {
  const values = halfTable();
  const out = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) {
    const rounded = values[toHalfBits(vector[i]!)]!;
    if (!Number.isFinite(rounded) && Number.isFinite(vector[i]!)) return vector.slice();
    out[i] = rounded;
  }
  return out;
}

/**
 * A vector as the embedded store keeps it: at half precision (a tag byte,
 * then binary16, little-endian) when that loses nothing, as float32
 * otherwise. Blobs written by earlier versions are all float32; both are read
 * back (`decodeStoredVector`), so an index needs no migration.
 */
export function encodeStoredVector(vector: Float32Array): Buffer {
  const out = Buffer.allocUnsafe(1 + 2 * vector.length);
  out[0] = HALF_TAG;
  for (let i = 0; i < vector.length; i++) {
    const bits = exactHalfBits(vector[i]!);
    // A component binary16 does not hold exactly: the vector is kept whole instead.
    if (bits === undefined) return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
    // Byte by byte: writeUInt16LE's checks cost more than the conversion, on every component of every vector.
    out[1 + 2 * i] = bits & 0xff;
    out[2 + 2 * i] = bits >>> 8;
  }
  return out;
}

/** The length of a stored vector of `dimension` components in each format encodeStoredVector writes. */
export function storedVectorBytes(dimension: number, format: 'half' | 'float32'): number {
  return format === 'half' ? 1 + 2 * dimension : 4 * dimension;
}

/** The vector `encodeStoredVector` wrote, or undefined for a blob of neither format. */
export function decodeStoredVector(blob: Uint8Array): Float32Array | undefined {
  if (blob.length % 2 === 1) {
    if (blob[0] !== HALF_TAG) return undefined;
    const values = halfTable();
    const out = new Float32Array((blob.length - 1) >>> 1);
    for (let i = 0; i < out.length; i++) out[i] = values[blob[1 + 2 * i]! | (blob[2 + 2 * i]! << 8)]!;
    return out;
  }
  if (blob.length % 4 !== 0) return undefined;
  // Copied: a Buffer's offset need not be 4-byte aligned.
  const copy = new Uint8Array(blob.length);
  copy.set(blob);
  return new Float32Array(copy.buffer);
}
