import { describe, expect, it } from 'vitest';
import { AsyncGenerationCache, GenerationCache } from '../../src/search/generation-cache.js';

describe('GenerationCache', () => {
  it('keeps an answer for its generation, even in a cache of one', () => {
    const cache = new GenerationCache<number>(1);
    let computed = 0;
    const get = (generation: number, key: string) => cache.get(generation, key, () => ++computed);
    expect(get(1, 'n')).toBe(1);
    expect(get(1, 'n')).toBe(1);
    expect(computed).toBe(1);
    // Another key when full: a fresh start, then kept.
    expect(get(1, 'm')).toBe(2);
    expect(get(1, 'm')).toBe(2);
    expect(cache.has(1, 'm')).toBe(true);
    // A new generation forgets everything.
    expect(cache.has(2, 'm')).toBe(false);
    expect(get(2, 'm')).toBe(3);
  });

  it('shares one read between concurrent askers, and keeps no failure', async () => {
    const cache = new AsyncGenerationCache<number>(10);
    let reads = 0;
    const failing = cache.get(1, 'x', async () => {
      reads++;
      throw new Error('down');
    });
    await expect(failing).rejects.toThrow('down');
    const [a, b] = await Promise.all([cache.get(1, 'x', async () => ++reads), cache.get(1, 'x', async () => ++reads)]);
    expect([a, b]).toEqual([2, 2]);
    expect(reads).toBe(2);
  });
});
