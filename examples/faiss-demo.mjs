// A first look at ocvector's FAISS binding:
// builds an exact and an HNSW index over 50,000 embedding-like vectors,
// searches both, compares them, saves the index and loads it back.
//
//   npm run demo:faiss    (after `bash scripts/setup.sh`)
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FaissIndex, blasInfo, gpuInfo } from 'ocvector';

const d = 384; // the width of a small sentence-embedding model
const n = 50_000;

// Embedding-like data: normalised points around 200 topics.
function embeddings(count, seed) {
  let state = seed >>> 0;
  const random = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const gaussian = () => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
  let topicState = 7;
  const topicRandom = () => (topicState = (Math.imul(topicState, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const topics = Array.from({ length: 200 * d }, () => topicRandom() - 0.5);
  const out = new Float32Array(count * d);
  for (let i = 0; i < count; i++) {
    const topic = Math.floor(random() * 200);
    let norm = 0;
    for (let j = 0; j < d; j++) {
      const value = topics[topic * d + j] + 0.02 * gaussian();
      out[i * d + j] = value;
      norm += value * value;
    }
    for (let j = 0; j < d; j++) out[i * d + j] /= Math.sqrt(norm);
  }
  return out;
}

const time = async (label, work) => {
  const start = performance.now();
  const result = await work();
  console.log(`${label.padEnd(44)} ${(performance.now() - start).toFixed(1).padStart(8)} ms`);
  return result;
};

const blas = blasInfo();
console.log(`FAISS on ${blas.vendor} (${blas.threading}); GPU: ${gpuInfo().reason || 'available'}\n`);

const base = embeddings(n, 1);
const queries = embeddings(100, 2);

const exact = await FaissIndex.create({ dimension: d, description: 'Flat', metric: 'ip' });
await time(`add ${n} vectors to an exact (Flat) index`, () => exact.add(base));
const hnsw = await FaissIndex.create({ dimension: d, description: 'HNSW32,Flat', metric: 'ip', ids: true });
const ids = Array.from({ length: n }, (_, i) => i);
await time(`build an HNSW32 graph over the same vectors`, () => hnsw.addWithIds(base, ids));

const truth = await time('exact search, 100 queries batched, k=10', () => exact.search(queries, 10));
const approx = await time('HNSW search, 100 queries, efSearch 64', () => hnsw.search(queries, 10, { efSearch: 64 }));
let found = 0;
for (let q = 0; q < 100; q++) {
  const want = new Set(truth.labels.subarray(q * 10, q * 10 + 10));
  for (const id of approx.labels.subarray(q * 10, q * 10 + 10)) if (want.has(id)) found++;
}
console.log(`\nHNSW recall@10 against exact search: ${(found / 1000).toFixed(3)}`);
console.log(`query 0, nearest ids: ${Array.from(truth.labels.subarray(0, 5)).join(', ')}`);
console.log(`          similarity: ${Array.from(truth.distances.subarray(0, 5), (x) => x.toFixed(3)).join(', ')}\n`);

const dir = mkdtempSync(join(tmpdir(), 'ocvector-demo-'));
const path = join(dir, 'demo.ocvx');
await time('write the HNSW index (atomic, checksummed)', () => hnsw.write(path));
const loaded = await time('read it back', () => FaissIndex.read(path));
const again = await loaded.search(queries, 10, { efSearch: 64 });
const same = again.labels.every((label, i) => label === approx.labels[i]);
console.log(
  `\n${(statSync(path).size / 2 ** 20).toFixed(1)} MiB on disk; reloaded index gives ${same ? 'identical' : 'DIFFERENT'} results`,
);
for (const index of [exact, hnsw, loaded]) index.close();
rmSync(dir, { recursive: true, force: true });
if (!same) process.exitCode = 1;
