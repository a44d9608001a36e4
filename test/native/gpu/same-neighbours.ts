/** Comparing GPU results with CPU ones. */
import { expect } from 'vitest';
import type { KnnResult } from '../../../src/index.js';

/**
 * The same neighbours in the same order, and the same distances but for
 * float rounding: a GPU sums in another order, so two neighbours whose
 * distances tie to within that rounding may come in either order.
 */
export function expectSameNeighbours(gpu: KnnResult, cpu: KnnResult, tolerance = 1e-4): void {
  expect({ nq: gpu.nq, k: gpu.k }).toEqual({ nq: cpu.nq, k: cpu.k });
  let ties = 0;
  for (let i = 0; i < cpu.labels.length; i++) {
    const close =
      Math.abs(gpu.distances[i]! - cpu.distances[i]!) <= tolerance * Math.max(1, Math.abs(cpu.distances[i]!));
    expect(close, `distance ${i}: GPU ${gpu.distances[i]}, CPU ${cpu.distances[i]}`).toBe(true);
    if (gpu.labels[i] !== cpu.labels[i]) ties++;
  }
  // Ties are rare on these data: more than one in a thousand is not rounding.
  expect(ties).toBeLessThanOrEqual(Math.ceil(cpu.labels.length / 1000));
}
