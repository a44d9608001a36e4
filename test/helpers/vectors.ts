/** Deterministic test data and reference computations for the FAISS tests. */

/** mulberry32: a small seeded PRNG, so every run sees the same data. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** Isotropic Gaussian vectors: the hardest case for graph indexes. */
export function randomVectors(n: number, d: number, seed: number): Float32Array {
  const random = seededRandom(seed);
  const out = new Float32Array(n * d);
  for (let i = 0; i < out.length; i++) out[i] = gaussian(random);
  return out;
}

export function normalizeRows(vectors: Float32Array, d: number): Float32Array {
  for (let row = 0; row < vectors.length / d; row++) {
    let norm = 0;
    for (let j = 0; j < d; j++) norm += vectors[row * d + j]! ** 2;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let j = 0; j < d; j++) vectors[row * d + j]! *= scale;
  }
  return vectors;
}

/**
 * Normalised vectors shaped like real embeddings: clustered, and of low
 * intrinsic dimension. Points are drawn around `clusters` centres in a
 * 16-dimensional latent space and projected into `d` dimensions, plus a little
 * isotropic noise. Centres and projection come from `world`, so base vectors
 * and queries drawn with different seeds share one distribution.
 */
export function clusteredVectors(n: number, d: number, seed: number, world = 42, clusters = 100): Float32Array {
  const latent = 16;
  const worldRandom = seededRandom(world);
  const centres = Array.from({ length: clusters * latent }, () => gaussian(worldRandom));
  const projection = Array.from({ length: latent * d }, () => gaussian(worldRandom) / Math.sqrt(latent));
  const random = seededRandom(seed);
  const out = new Float32Array(n * d);
  const point = new Array<number>(latent);
  for (let i = 0; i < n; i++) {
    const c = Math.floor(random() * clusters);
    for (let l = 0; l < latent; l++) point[l] = centres[c * latent + l]! + 0.5 * gaussian(random);
    for (let j = 0; j < d; j++) {
      let value = 0.05 * gaussian(random);
      for (let l = 0; l < latent; l++) value += point[l]! * projection[l * d + j]!;
      out[i * d + j] = value;
    }
  }
  return normalizeRows(out, d);
}

export interface Neighbours {
  labels: number[];
  distances: number[];
}

/** Exact k-NN by brute force in JavaScript: the reference for FAISS. */
export function bruteForce(
  base: Float32Array,
  queries: Float32Array,
  d: number,
  k: number,
  metric: 'ip' | 'l2',
): Neighbours[] {
  const n = base.length / d;
  const results: Neighbours[] = [];
  for (let q = 0; q < queries.length / d; q++) {
    const scored: { id: number; distance: number }[] = [];
    for (let i = 0; i < n; i++) {
      let acc = 0;
      for (let j = 0; j < d; j++) {
        const a = queries[q * d + j]!;
        const b = base[i * d + j]!;
        acc += metric === 'ip' ? a * b : (a - b) * (a - b);
      }
      scored.push({ id: i, distance: acc });
    }
    scored.sort((x, y) => (metric === 'ip' ? y.distance - x.distance : x.distance - y.distance));
    const top = scored.slice(0, k);
    results.push({ labels: top.map((s) => s.id), distances: top.map((s) => s.distance) });
  }
  return results;
}

/** Row q of a row-major result, as plain numbers. */
export function row(labels: BigInt64Array, k: number, q: number): number[] {
  return Array.from(labels.subarray(q * k, (q + 1) * k), Number);
}

/** Mean fraction of the true top-k found in the approximate top-k. */
export function recallAtK(approx: BigInt64Array, exact: BigInt64Array, nq: number, k: number): number {
  let found = 0;
  for (let q = 0; q < nq; q++) {
    const truth = new Set(row(exact, k, q));
    for (const id of row(approx, k, q)) if (truth.has(id)) found++;
  }
  return found / (nq * k);
}

export function slice(vectors: Float32Array, d: number, from: number, to: number): Float32Array {
  return vectors.slice(from * d, to * d);
}
