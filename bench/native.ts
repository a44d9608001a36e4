/**
 * The FAISS binding against raw C++ FAISS, event-loop lag, memory and size.
 *
 *   npm run bench:native                 # the full run (about 4 minutes here)
 *   npm run bench:native -- --quick      # small sizes, to check the bench itself
 *   npm run bench:native -- --prebuilt   # the prebuilt addon against the one built here (bench/lib/prebuilt.ts)
 *   npm run bench:native -- --gpu        # GPU against CPU, crossover, concurrent clients (bench/lib/gpu.ts; needs a GPU)
 *   npm run bench:native -- --concurrency  # concurrent clients with and without batching, CPU (bench/lib/gpu.ts)
 *   npm run bench:native -- --allowed    # searches restricted to 10% and 1% of the ids against unrestricted ones (bench/lib/allowed.ts)
 *
 * Prints tables and writes its figures to bench/out/native.json (native-quick.json with --quick).
 * Raw C++ and binding are measured in alternating rounds on the same queries,
 * data, index file and threads, so that drift on the machine affects both.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FaissIndex, blasInfo, faissVersion, getNumThreads, setNumThreads } from '../src/index.js';
import { clusteredVectors, recallAtK, seededRandom } from '../test/helpers/vectors.js';
import { measureEventLoopLag, type LagFigures } from './lib/event-loop.js';
import { describeMachine } from '../eval/lib/machine.js';
import { RawBaseline, buildRawBaseline, type RawMode } from './lib/raw-baseline.js';
import { writeFigures } from './lib/out.js';
import { compareAllowed } from './lib/allowed.js';
import { compareConcurrency, compareGpu } from './lib/gpu.js';
import { comparePrebuilt } from './lib/prebuilt.js';
import { markdownTable, PAGES, replaceGeneratedSection } from '../eval/lib/readme.js';
import { median, mib, ms, percentile, printTable, timed } from '../eval/lib/stats.js';

const quick = process.argv.includes('--quick');
if (process.argv.includes('--prebuilt')) {
  comparePrebuilt(quick);
  process.exit(0);
}
if (process.argv.includes('--gpu')) {
  await compareGpu(quick);
  process.exit(0);
}
if (process.argv.includes('--concurrency')) {
  await compareConcurrency(quick);
  process.exit(0);
}
if (process.argv.includes('--allowed')) {
  await compareAllowed(quick);
  process.exit(0);
}
const root = fileURLToPath(new URL('..', import.meta.url));
const cacheDir = join(root, 'bench/.cache');
mkdirSync(cacheDir, { recursive: true });

const d = 768;
const n = quick ? 20_000 : 100_000;
const bigN = quick ? 200_000 : 1_000_000;
const nq = 200;
const k = 10;
const rounds = quick ? 3 : 10;
const perRound = 10; // single queries per side per round
const batch = 64;
const efSearch = 64;
const lagRepeats = 3;

const log = (message: string) => process.stderr.write(`bench: ${message}\n`);
const collectGarbage = (globalThis as { gc?: () => void }).gc ?? (() => {});

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

/** Fills `out` with uniform values: only for timing exact search, where values do not matter. */
function fillUniform(out: Float32Array, seed: number): Float32Array {
  const random = seededRandom(seed);
  for (let i = 0; i < out.length; i++) out[i] = random() * 2 - 1;
  return out;
}

const rss = () => process.memoryUsage().rss;

/** Alternates raw and binding single-query rounds over the same queries. */
async function alternateSingles(
  raw: RawBaseline,
  mode: RawMode,
  index: FaissIndex,
  queries: Float32Array,
  params = {},
): Promise<{ raw: number[]; binding: number[]; labels: BigInt64Array }> {
  const labels = new BigInt64Array(rounds * perRound * k);
  const rawTimes: number[] = [];
  const bindingTimes: number[] = [];
  await raw.single(mode, 0, 1); // warm-up on both sides
  await index.search(queries.subarray(0, d), k, params);
  for (let r = 0; r < rounds; r++) {
    const first = r * perRound;
    rawTimes.push(...(await raw.single(mode, first, perRound)));
    for (let q = first; q < first + perRound; q++) {
      const { result, ms: took } = await timed(() => index.search(queries.subarray(q * d, (q + 1) * d), k, params));
      bindingTimes.push(took);
      labels.set(result.labels, q * k);
    }
  }
  return { raw: rawTimes, binding: bindingTimes, labels };
}

async function alternateBatches(raw: RawBaseline, index: FaissIndex, queries: Float32Array) {
  const block = queries.subarray(0, batch * d);
  await raw.batch(batch, 1);
  await index.search(block, k);
  const rawTimes: number[] = [];
  const bindingTimes: number[] = [];
  for (let r = 0; r < rounds; r++) {
    rawTimes.push(...(await raw.batch(batch, 1)));
    bindingTimes.push((await timed(() => index.search(block, k))).ms);
  }
  return { raw: rawTimes, binding: bindingTimes };
}

/** The worst and p99 of several runs of `work`, each with the garbage collected first. */
async function worstLag(work: () => Promise<unknown>): Promise<LagFigures> {
  const runs: LagFigures[] = [];
  for (let i = 0; i < lagRepeats; i++) {
    collectGarbage();
    runs.push(await measureEventLoopLag(work));
  }
  return {
    workMs: median(runs.map((r) => r.workMs)),
    worstMs: Math.max(...runs.map((r) => r.worstMs)),
    p99Ms: Math.max(...runs.map((r) => r.p99Ms)),
    samples: runs.reduce((sum, r) => sum + r.samples, 0),
  };
}

async function main() {
  const threads = getNumThreads();
  const blas = blasInfo();
  log(
    `${describeMachine()}; FAISS ${faissVersion()}; BLAS ${blas.vendor} (${blas.threading}), OMP_WAIT_POLICY=${blas.ompWaitPolicy}`,
  );

  log(`generating ${n} x ${d} clustered, normalised vectors and ${nq} queries`);
  const base = clusteredVectors(n, d, 1);
  const queries = clusteredVectors(nq, d, 2);
  const basePath = join(cacheDir, `base-${n}x${d}.f32`);
  const queriesPath = join(cacheDir, `queries-${nq}x${d}.f32`);
  writeDurably(basePath, base);
  writeDurably(queriesPath, queries);

  log(`HNSW32: building over ${n} vectors`);
  collectGarbage();
  let before = rss();
  const hnsw = await FaissIndex.create({ dimension: d, description: 'HNSW32,Flat', metric: 'ip' });
  const hnswBuild = await measureEventLoopLag(() => hnsw.add(base));
  const hnswBytes = rss() - before;
  const hnswPath = join(cacheDir, `hnsw32-${n}x${d}.ocvx`);
  await hnsw.write(hnswPath);

  collectGarbage();
  before = rss();
  const flat = await FaissIndex.create({ dimension: d, metric: 'ip' });
  await flat.add(base);
  const flatBytes = rss() - before;

  log('raw C++ and binding, alternating rounds');
  const raw = await RawBaseline.start(buildRawBaseline(root, cacheDir), [
    basePath,
    queriesPath,
    d,
    hnswPath,
    k,
    efSearch,
  ]);
  setNumThreads(1);
  const oneThread = await alternateSingles(raw, 'flat1', flat, queries);
  setNumThreads(0);
  const sliced = await alternateSingles(raw, 'sliced', flat, queries);
  const faissAllThreads = await raw.single('flat', 0, rounds * perRound);
  const batched = await alternateBatches(raw, flat, queries);
  const hnswSingles = await alternateSingles(raw, 'hnsw', hnsw, queries, { efSearch });
  raw.stop();
  const truth = await flat.search(queries.subarray(0, rounds * perRound * d), k);
  const hnswRecall = recallAtK(hnswSingles.labels, truth.labels, rounds * perRound, k);
  flat.close();
  hnsw.close();

  log(`event-loop lag: exact search over ${bigN} x ${d} (each measured ${lagRepeats} times)`);
  const big = await FaissIndex.create({ dimension: d, metric: 'ip' });
  const chunk = new Float32Array(100_000 * d); // refilled in place: no garbage
  for (let start = 0; start < bigN; start += 100_000) await big.add(fillUniform(chunk, start + 7));
  const bigQueries = fillUniform(new Float32Array(batch * d), 3);
  const bigSingle = await worstLag(() => big.search(bigQueries.subarray(0, d), k));
  const bigBatch = await worstLag(() => big.search(bigQueries, k));
  big.close();

  const addonBytes = statSync(join(root, 'build/Release/ocvector.node')).size;

  // ---- report -----------------------------------------------------------------
  const p50 = median;
  const comparisons = [
    {
      name: 'Flat, 1 query, 1 thread',
      raw: p50(oneThread.raw),
      binding: p50(oneThread.binding),
      note: "FAISS's own search",
    },
    {
      name: `Flat, 1 query, ${threads} threads`,
      raw: p50(sliced.raw),
      binding: p50(sliced.binding),
      note: 'sliced search, same code',
    },
    {
      name: `Flat, ${batch} batched, per query`,
      raw: p50(batched.raw) / batch,
      binding: p50(batched.binding) / batch,
      note: '',
    },
    {
      name: `HNSW32 efSearch ${efSearch}, 1 query`,
      raw: p50(hnswSingles.raw),
      binding: p50(hnswSingles.binding),
      note: `recall@10 ${hnswRecall.toFixed(3)}`,
    },
  ];
  printTable(
    `Binding vs raw C++ FAISS: ${n} x ${d}, k=${k}, inner product, medians of ${rounds} alternating rounds`,
    ['case', 'raw C++', 'binding', 'ratio', 'added', 'note'],
    [
      ...comparisons.map(comparisonRow),
      [
        `raw FAISS IndexFlat::search, 1 query, ${threads} threads`,
        ms(p50(faissAllThreads)),
        '',
        '',
        '',
        'one core per query',
      ],
    ],
  );

  const lagRow = (name: string, lag: LagFigures) => [
    name,
    ms(lag.workMs, 0),
    ms(lag.worstMs),
    ms(lag.p99Ms),
    String(lag.samples),
  ];
  printTable(
    'Event-loop lag while FAISS works (1 ms timer; worst and p99 over all runs)',
    ['work', 'duration', 'worst', 'p99', 'ticks'],
    [
      lagRow(`exact search, 1 query over ${bigN} x ${d}`, bigSingle),
      lagRow(`exact search, ${batch} batched over ${bigN} x ${d}`, bigBatch),
      lagRow(`HNSW32 build of ${n} x ${d}`, hnswBuild),
    ],
  );

  const batchingGain = (p50(sliced.binding) * batch) / p50(batched.binding);
  printTable(
    'Size and memory',
    ['what', 'value'],
    [
      ['ocvector.node', mib(addonBytes)],
      [`Flat, RSS per 100,000 x ${d}`, mib((flatBytes * 100_000) / n)],
      [`HNSW32, RSS per 100,000 x ${d}`, mib((hnswBytes * 100_000) / n)],
      [`HNSW32 build time, ${n} vectors`, ms(hnswBuild.workMs, 0)],
      ['throughput of 64 batched over single queries', `${batchingGain.toFixed(1)}x`],
    ],
  );

  const figures = {
    machine: describeMachine(),
    faiss: faissVersion(),
    blas,
    threads,
    sizes: { n, d, nq, k, rounds, perRound, batch, bigN, efSearch },
    comparisons,
    rawFaissSingleAllThreads: p50(faissAllThreads),
    bindingP95: { flatSliced: percentile(sliced.binding, 95), hnsw: percentile(hnswSingles.binding, 95) },
    hnswRecall,
    lag: { bigSingle, bigBatch, hnswBuild },
    memory: { addonBytes, flatBytesPer100k: (flatBytes * 100_000) / n, hnswBytesPer100k: (hnswBytes * 100_000) / n },
    batchingGain,
  };
  writeFigures('native', figures, quick);
  if (!quick) {
    replaceGeneratedSection(join(root, PAGES.performance), 'native', performanceSection(figures));
    log(`${PAGES.performance}: native section updated`);
  }
}

function performanceSection(f: {
  comparisons: Comparison[];
  rawFaissSingleAllThreads: number;
  lag: Record<'bigSingle' | 'bigBatch' | 'hnswBuild', LagFigures>;
  memory: { addonBytes: number; flatBytesPer100k: number; hnswBytesPer100k: number };
  batchingGain: number;
  machine: string;
}): string {
  const comparison = markdownTable(
    ['case (p50)', 'raw C++', 'binding', 'ratio', 'added', 'note'],
    f.comparisons.map(comparisonRow),
  );
  const lag = markdownTable(
    ['while FAISS runs', 'duration', 'worst lag', 'p99 lag'],
    [
      [`exact search, 1 query over ${bigN.toLocaleString('en')} × ${d}`, f.lag.bigSingle],
      [`exact search, ${batch} batched over ${bigN.toLocaleString('en')} × ${d}`, f.lag.bigBatch],
      [`HNSW32 build of ${n.toLocaleString('en')} × ${d}`, f.lag.hnswBuild],
    ].map(([name, lagFigures]) => {
      const l = lagFigures as LagFigures;
      return [name as string, ms(l.workMs, 0), ms(l.worstMs), ms(l.p99Ms)];
    }),
  );
  return [
    comparison,
    '',
    `FAISS's own \`IndexFlat::search\` runs one query on one core: ${ms(f.rawFaissSingleAllThreads)} here; the binding splits it across all cores. ` +
      `Batching ${batch} queries gives ${f.batchingGain.toFixed(1)}x the throughput of single queries.`,
    '',
    lag,
    '',
    `Memory: ${mib(f.memory.flatBytesPer100k)} RSS per 100,000 × ${d} vectors in a Flat index, ${mib(f.memory.hnswBytesPer100k)} in HNSW32. ` +
      `Addon: ${mib(f.memory.addonBytes)} (FAISS linked in statically). Machine: ${f.machine}.`,
  ].join('\n');
}

await main();

interface Comparison {
  name: string;
  raw: number;
  binding: number;
  note: string;
}

/** A case measured both ways, as a table row: raw, binding, their ratio, what the binding adds, the note. */
function comparisonRow(c: Comparison): string[] {
  return [c.name, ms(c.raw), ms(c.binding), (c.binding / c.raw).toFixed(3), ms(c.binding - c.raw, 3), c.note];
}
