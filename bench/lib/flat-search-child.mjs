// One side of the prebuilt-against-system comparison (bench/lib/prebuilt.ts):
// loads the addon at argv[2] in this process alone (two copies of FAISS and
// OpenBLAS cannot share one process), builds a Flat index of seeded uniform
// vectors and times batched searches. Prints one JSON line.
//   node flat-search-child.mjs <addon.node> <n> <dimension> <queries> <repeats>
import { createRequire } from 'node:module';

const [path, n, d, nq, repeats] = [process.argv[2], ...process.argv.slice(3).map(Number)];
const addon = createRequire(import.meta.url)(path);
addon.setErrorClass(Error);

let seed = 0x2545f491;
const fill = (length) => {
  const out = new Float32Array(length);
  for (let i = 0; i < length; i++) {
    seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    out[i] = seed / 2 ** 31 - 1;
  }
  return out;
};

const index = await addon.NativeIndex.create(d, 'Flat', 'ip', false, 'cpu');
await index.add(fill(n * d));
const queries = fill(nq * d);
await index.search(queries, 10); // warm-up: pages faulted in, threads started
const times = [];
for (let i = 0; i < repeats; i++) {
  const started = performance.now();
  await index.search(queries, 10);
  times.push(performance.now() - started);
}
index.close();
const blas = addon.blasInfo();
console.log(JSON.stringify({ faiss: addon.faissVersion, blas: blas.library, coreType: blas.coreType, times }));
