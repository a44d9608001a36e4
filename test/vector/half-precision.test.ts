import { describe, expect, it } from 'vitest';
import {
  decodeStoredVector,
  encodeStoredVector,
  fromHalfBits,
  isHalfExact,
  roundToHalf,
  toHalfBits,
} from '../../src/vector/half-precision.js';

describe('binary16', () => {
  it.each([
    [1, 0x3c00],
    [-2, 0xc000],
    [0.1, 0x2e66],
    [65504, 0x7bff],
    // Past the largest half, infinity; the smallest subnormal, half of it and one and a half of it (ties, to even).
    [65520, 0x7c00],
    [2 ** -24, 0x0001],
    [2 ** -25, 0x0000],
    [3 * 2 ** -25, 0x0002],
    // Ties to even: 1 + 2^-11 is halfway between 1 and the next half, whose last bit is odd.
    [1 + 2 ** -11, 0x3c00],
    [1 + 3 * 2 ** -11, 0x3c02],
    [Number.POSITIVE_INFINITY, 0x7c00],
  ])('%f is %i', (value, bits) => {
    expect(toHalfBits(value)).toBe(bits);
  });

  it('reads back every half value it writes', () => {
    for (let bits = 0; bits < 0x10000; bits++) {
      const value = fromHalfBits(bits);
      if (Number.isNaN(value)) continue;
      expect(toHalfBits(value)).toBe(bits);
    }
  });
});

describe('stored vectors', () => {
  const unit = (values: number[]) => {
    const norm = Math.hypot(...values);
    return Float32Array.from(values, (value) => value / norm);
  };

  it('keeps a vector rounded to half precision in a tagged blob of two bytes a dimension, exactly', () => {
    const vector = roundToHalf(unit([0.3, -0.2, 0.9, 0.01, -0.45]));
    expect(isHalfExact(vector)).toBe(true);
    const blob = encodeStoredVector(vector);
    expect(blob.length).toBe(1 + 2 * vector.length);
    expect(decodeStoredVector(blob)).toEqual(vector);
  });

  it('moves no component of a unit vector by more than 2^-12 of its size', () => {
    const vector = unit(
      Array.from(
        { length: 512 },
        (_, i) => Math.sin(i * 12.9898) * 43758.5453 - Math.floor(Math.sin(i * 12.9898) * 43758.5453) - 0.5,
      ),
    );
    const rounded = roundToHalf(vector);
    for (let i = 0; i < vector.length; i++)
      expect(Math.abs(rounded[i]! - vector[i]!)).toBeLessThanOrEqual(Math.abs(vector[i]!) * 2 ** -11 + 2 ** -25);
  });

  it('keeps any other vector as float32, and reads the float32 blobs written before', () => {
    const vector = Float32Array.from([0.1, 0.2, 0.3]);
    expect(isHalfExact(vector)).toBe(false);
    const blob = encodeStoredVector(vector);
    expect(blob.length).toBe(4 * vector.length);
    expect(decodeStoredVector(blob)).toEqual(vector);
    // Components past binary16's range: not rounded (they would become infinities), kept whole.
    const large = Float32Array.from([70000, 1]);
    expect(roundToHalf(large)).toEqual(large);
    expect(encodeStoredVector(roundToHalf(large)).length).toBe(8);
  });

  it('reads no vector from a blob of neither format', () => {
    expect(decodeStoredVector(Buffer.from([2, 0, 0]))).toBeUndefined();
    expect(decodeStoredVector(Buffer.from([0, 0, 0, 0, 0, 0]))).toBeUndefined();
  });
});
