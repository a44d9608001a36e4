import { describe, expect, it } from 'vitest';
import { FaissIndex } from '../../src/index.js';
import { clusteredVectors, randomVectors } from '../helpers/vectors.js';

/**
 * Runs `work` while a 1 ms interval measures how late each tick fires.
 * Returns the work's duration and the worst lag observed.
 */
async function measureLag(
  work: () => Promise<unknown>,
): Promise<{ duration: number; worstLag: number; ticks: number }> {
  let last = performance.now();
  let worstLag = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worstLag = Math.max(worstLag, now - last - 1);
    last = now;
    ticks++;
  }, 1);
  const start = performance.now();
  await work();
  const duration = performance.now() - start;
  clearInterval(timer);
  return { duration, worstLag, ticks };
}

describe('the event loop stays responsive while FAISS works', () => {
  it('during a long exact search', async () => {
    const d = 128;
    const index = await FaissIndex.create({ dimension: d });
    await index.add(randomVectors(200_000, d, 1));
    const queries = randomVectors(2_000, d, 2);
    const { duration, worstLag, ticks } = await measureLag(() => index.search(queries, 10));
    // The search must take long enough for the comparison to mean something,
    // and the loop must keep ticking throughout it.
    expect(duration).toBeGreaterThan(150);
    expect(ticks).toBeGreaterThan(duration / 20);
    expect(worstLag).toBeLessThan(duration / 4);
  });

  it('during an HNSW build', async () => {
    const d = 64;
    const index = await FaissIndex.create({ dimension: d, description: 'HNSW32,Flat' });
    const base = clusteredVectors(40_000, d, 3);
    const { duration, worstLag, ticks } = await measureLag(() => index.add(base));
    expect(duration).toBeGreaterThan(150);
    expect(ticks).toBeGreaterThan(duration / 20);
    expect(worstLag).toBeLessThan(duration / 4);
  });
});
