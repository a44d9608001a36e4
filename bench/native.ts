/**
 * The FAISS binding against raw C++ FAISS, event-loop lag, memory and size.
 *
 *   npm run bench:native                 # the full run (about 5 minutes here)
 *   npm run bench:native -- --quick      # small sizes, to check the bench itself
 *
 * Prints tables and writes bench/out/native.json. Every ratio compares two
 * measurements taken in this one run, on the same data, index and threads.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FaissIndex, blasInfo, faissVersion, getNumThreads, setNumThreads } from '../src/index.js';
import { clusteredVectors, recallAtK, seededRandom } from '../test/helpers/vectors.js';
import { measureEventLoopLag, type LagFigures } from './lib/event-loop.js';
import { describeMachine } from './lib/machine.js';
import { buildRawBaseline, runRawBaseline } from './lib/raw-baseline.js';
import { median, mib, ms, percentile, printTable, timed } from './lib/stats.js';

const quick = process.argv.includes('--quick');
const root = fileURLToPath(new URL('..', import.meta.url));
const cacheDir = join(root, 'bench/.cache');
const outDir = join(root, 'bench/out');
mkdirSync(cacheDir, { recursive: true });
mkdirSync(outDir, { recursive: true });

const d = 768;
const n = quick ? 20_000 : 100_000;
const bigN = quick ? 200_000 : 1_000_000;
const nq = 200;
const k = 10;
const singles = quick ? 20 : 50;
const batch = 64;
const batchRepeats = 5;
const efSearch = 64;

const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

/** Uniform vectors, fast: only for timing exact search, where values do not matter. */
function uniformVectors(count: number, dim: number, seed: number): Float32Array {
  const random = seededRandom(seed);
  const out = new Float32Array(count * dim);
  for (let i = 0; i < out.length; i++) out[i] = random() * 2 - 1;
  return out;
}

/**
 * Writes and fsyncs: dirty pages left for the kernel to flush later would be
 * written back in the middle of the memory-bound scans being timed.
 */
function writeDurably(path: string, data: Float32Array): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function rss(): number {
  return process.memoryUsage().rss;
}

async function singleQueryTimes(index: FaissIndex, queries: Float32Array, params = {}): Promise<{ times: number[]; labels: BigInt64Array }> {
  const labels = new BigInt64Array(singles * k);
  await index.search(queries.subarray(0, d), k, params); // warm-up, as the C++ side does
  const times: number[] = [];
  for (let q = 0; q < singles; q++) {
    const { result, ms: took } = await timed(() => index.search(queries.subarray(q * d, (q + 1) * d), k, params));
    times.push(took);
    labels.set(result.labels, q * k);
  }
  return { times, labels };
}

async function batchedTimes(index: FaissIndex, queries: Float32Array): Promise<number[]> {
  const block = queries.subarray(0, batch * d);
  await index.search(block, k);
  const times: number[] = [];
  for (let r = 0; r < batchRepeats; r++) times.push((await timed(() => index.search(block, k))).ms);
  return times;
}

async function main() {
  const threads = getNumThreads();
  log(`${describeMachine()}; FAISS ${faissVersion()}; BLAS ${blasInfo().vendor} (${blasInfo().threading}), OMP_WAIT_POLICY=${blasInfo().ompWaitPolicy}`);

  log(`generating ${n} x ${d} clustered, normalised vectors and ${nq} queries`);
  const base = clusteredVectors(n, d, 1);
  const queries = clusteredVectors(nq, d, 2);
  const basePath = join(cacheDir, `base-${n}x${d}.f32`);
  const queriesPath = join(cacheDir, `queries-${nq}x${d}.f32`);
  writeDurably(basePath, base);
  writeDurably(queriesPath, queries);

  // Order: build and write the HNSW index (the raw baseline reads it), run
  // the raw baseline in its own process, then time the binding: both sides
  // then measure on a machine with nothing else going on.
  log(`HNSW32: building over ${n} vectors`);
  let before = rss();
  const hnsw = await FaissIndex.create({ dimension: d, description: 'HNSW32,Flat', metric: 'ip' });
  const hnswBuildLag = await measureEventLoopLag(() => hnsw.add(base));
  const hnswBytes = rss() - before;
  const hnswPath = join(cacheDir, `hnsw32-${n}x${d}.ocvx`);
  await hnsw.write(hnswPath);

  log('raw C++ FAISS on the same data and index file');
  const raw = runRawBaseline(buildRawBaseline(root, cacheDir), [
    basePath, queriesPath, d, hnswPath, k, singles, batch, batchRepeats, efSearch,
  ]);

  log('binding: Flat single queries on 1 and on all threads, batched queries; HNSW single queries');
  before = rss();
  const flat = await FaissIndex.create({ dimension: d, metric: 'ip' });
  await flat.add(base);
  const flatBytes = rss() - before;
  setNumThreads(1);
  const flatOneThread = await singleQueryTimes(flat, queries);
  setNumThreads(0);
  const flatAll = await singleQueryTimes(flat, queries);
  const flatBatched = await batchedTimes(flat, queries);
  const truth = await flat.search(queries.subarray(0, singles * d), k);
  const hnswSingles = await singleQueryTimes(hnsw, queries, { efSearch });
  const hnswRecall = recallAtK(hnswSingles.labels, truth.labels, singles, k);
  flat.close();
  hnsw.close();

  log(`event-loop lag: exact search over ${bigN} x ${d}`);
  const big = await FaissIndex.create({ dimension: d, metric: 'ip' });
  const chunk = 100_000;
  for (let start = 0; start < bigN; start += chunk) await big.add(uniformVectors(Math.min(chunk, bigN - start), d, start + 7));
  const bigQueries = uniformVectors(batch, d, 3);
  const bigSingleLag = await measureEventLoopLag(async () => {
    for (let q = 0; q < 5; q++) await big.search(bigQueries.subarray(q * d, (q + 1) * d), k);
  });
  const bigBatchLag = await measureEventLoopLag(() => big.search(bigQueries, k));
  big.close();

  const addonBytes = statSync(join(root, 'build/Release/ocvector.node')).size;

  // ---- report -----------------------------------------------------------------
  const p50 = median;
  const rows: string[][] = [];
  const compare = (name: string, binding: number, rawValue: number, note = '') =>
    rows.push([name, ms(rawValue), ms(binding), (binding / rawValue).toFixed(3), ms(binding - rawValue, 3), note]);
  compare(`Flat, 1 query, 1 thread (p50)`, p50(flatOneThread.times), p50(raw.flatOneThread), 'FAISS\'s own search');
  compare(`Flat, 1 query, ${threads} threads (p50)`, p50(flatAll.times), p50(raw.flatSliced), 'sliced search, same code');
  rows.push([`  raw FAISS IndexFlat::search, ${threads} threads`, ms(p50(raw.flatFaiss)), '', '', '', 'one core per query']);
  compare(`Flat, ${batch} batched, per query (median)`, p50(flatBatched) / batch, p50(raw.flatBatched) / batch);
  compare(`HNSW32 efSearch ${efSearch}, 1 query (p50)`, p50(hnswSingles.times), p50(raw.hnswSingles), `recall@10 ${hnswRecall.toFixed(3)}`);
  printTable(`Binding vs raw C++ FAISS (${n} x ${d}, k=${k}, inner product)`, ['case', 'raw C++', 'binding', 'ratio', 'added', 'note'], rows);

  const lagRow = (name: string, lag: LagFigures) => [name, ms(lag.workMs, 0), ms(lag.worstMs), ms(lag.p99Ms), String(lag.samples)];
  printTable('Event-loop lag while FAISS works (1 ms timer)', ['work', 'duration', 'worst', 'p99', 'ticks'], [
    lagRow(`exact search, 5 single queries over ${bigN} x ${d}`, bigSingleLag),
    lagRow(`exact search, ${batch} batched over ${bigN} x ${d}`, bigBatchLag),
    lagRow(`HNSW32 build of ${n} x ${d}`, hnswBuildLag),
  ]);

  printTable('Size and memory', ['what', 'value'], [
    ['ocvector.node', mib(addonBytes)],
    [`Flat, RSS per 100,000 x ${d}`, mib((flatBytes * 100_000) / n)],
    [`HNSW32, RSS per 100,000 x ${d}`, mib((hnswBytes * 100_000) / n)],
    [`HNSW32 build time, ${n} vectors`, ms(hnswBuildLag.workMs, 0)],
    ['single query throughput gain of batching', `${((p50(flatAll.times) * batch) / p50(flatBatched)).toFixed(1)}x`],
  ]);

  const figures = {
    machine: describeMachine(),
    faiss: faissVersion(),
    blas: blasInfo(),
    threads,
    sizes: { n, d, nq, k, singles, batch, bigN, efSearch },
    binding: {
      flatOneThreadP50: p50(flatOneThread.times),
      flatAllThreadsP50: p50(flatAll.times),
      flatAllThreadsP95: percentile(flatAll.times, 95),
      flatBatchedPerQuery: p50(flatBatched) / batch,
      hnswP50: p50(hnswSingles.times),
      hnswP95: percentile(hnswSingles.times, 95),
      hnswRecall,
      hnswBuildMs: hnswBuildLag.workMs,
    },
    raw: {
      flatOneThreadP50: p50(raw.flatOneThread),
      flatFaissP50: p50(raw.flatFaiss),
      flatSlicedP50: p50(raw.flatSliced),
      flatBatchedPerQuery: p50(raw.flatBatched) / batch,
      hnswP50: p50(raw.hnswSingles),
    },
    lag: { bigSingle: bigSingleLag, bigBatch: bigBatchLag, hnswBuild: hnswBuildLag },
    memory: { addonBytes, flatBytesPer100k: (flatBytes * 100_000) / n, hnswBytesPer100k: (hnswBytes * 100_000) / n },
  };
  writeFileSync(join(outDir, quick ? 'native-quick.json' : 'native.json'), `${JSON.stringify(figures, null, 2)}\n`);
}

await main();
