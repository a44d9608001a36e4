/**
 * GPU against CPU in one run, the same data and the same addon (the GPU
 * build: FAISS's CPU code is in it too), and the throughput of concurrent
 * clients with and without SearchBatcher.
 *
 *   npm run bench:native -- --gpu [--quick]       # needs a CUDA device and bash scripts/build-gpu.sh
 *   npm run bench:native -- --concurrency [--quick]  # the CPU half of the concurrency table, anywhere
 *
 * --gpu: Flat and IVF at 1,000,000 × 768 (100,000 with --quick): add time,
 * one query and 1,000 batched, device memory; the Flat crossover (the
 * smallest size where one query is faster on the GPU, VectorIndex's
 * gpuMinVectors); and 1, 8 and 32 concurrent clients, CPU and GPU. Figures
 * go to bench/out/native-gpu.json and, for a full run, docs/performance.md.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FaissIndex, type KnnResult, faissVersion, gpuInfo, setNativeAddonPath } from '../../src/index.js';
import { SearchBatcher, type Searchable } from '../../src/native/search-batcher.js';
// An internal bench: Flat and IVF as the embedded store plans its FAISS file at each size.
import { nprobeFor, planIndex } from '../../src/store/embedded/index-plan.js';
import { normalizeRows, recallAtK, seededRandom } from '../../test/helpers/vectors.js';
import { describeMachine } from '../../eval/lib/machine.js';
import { writeFigures } from './out.js';
import { PAGES, markdownTable, replaceGeneratedSection } from '../../eval/lib/readme.js';
import { median, ms, printTable, timed } from '../../eval/lib/stats.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);
const d = 768;
const k = 10;

/**
 * Normalised vectors around 1,000 centres shared by every seed (base and
 * queries alike), with uniform noise: one random number per value, so that a
 * million rows take seconds (test/helpers' clusteredVectors takes minutes).
 */
function clustered(n: number, seed: number): Float32Array {
  const world = seededRandom(42);
  const centres = new Float32Array(1_000 * d).map(() => world() * 2 - 1);
  const random = seededRandom(seed);
  const out = new Float32Array(n * d);
  for (let i = 0; i < n; i++) {
    const c = Math.floor(random() * 1_000) * d;
    for (let j = 0; j < d; j++) out[i * d + j] = centres[c + j]! + 1.2 * (random() - 0.5);
  }
  return normalizeRows(out, d);
}

/** Device memory this process holds, in MiB (nvidia-smi), or NaN where it cannot say. */
function deviceMemoryMiB(): number {
  try {
    const rows = execFileSync('nvidia-smi', ['--query-compute-apps=pid,used_memory', '--format=csv,noheader,nounits'], {
      encoding: 'utf8',
    });
    const mine = rows.split('\n').find((line) => Number(line.split(',')[0]) === process.pid);
    return mine ? Number(mine.split(',')[1]) : 0;
  } catch {
    return Number.NaN;
  }
}

function deviceName(): string {
  try {
    return execFileSync('nvidia-smi', ['--query-gpu=name,memory.total,driver_version', '--format=csv,noheader'], {
      encoding: 'utf8',
    })
      .split('\n')[0]!
      .trim();
  } catch {
    return 'unknown GPU';
  }
}

/** Median ms of one query at a time over `count` queries, after one warm-up. */
async function singleQueryMs(search: (q: Float32Array) => Promise<KnnResult>, queries: Float32Array, count: number) {
  await search(queries.subarray(0, d));
  const times: number[] = [];
  for (let q = 0; q < count; q++) times.push((await timed(() => search(queries.subarray(q * d, (q + 1) * d)))).ms);
  return median(times);
}

/** Median ms of the whole batch, after one warm-up. */
async function batchMs(search: (q: Float32Array) => Promise<KnnResult>, queries: Float32Array, rounds: number) {
  await search(queries);
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) times.push((await timed(() => search(queries))).ms);
  return median(times);
}

export interface ThroughputRow {
  side: string;
  clients: number;
  direct: number;
  batched: number;
}

/**
 * Queries per second with `clients` concurrent clients, each sending single
 * queries one after another: straight to the index, then through a
 * SearchBatcher.
 */
async function throughput(index: Searchable, queries: Float32Array, clients: number, perClient: number) {
  const rows = queries.length / d;
  const run = async (search: (q: Float32Array) => Promise<KnnResult>) => {
    const started = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        for (let i = 0; i < perClient; i++) {
          const q = (c * perClient + i) % rows;
          await search(queries.subarray(q * d, (q + 1) * d));
        }
      }),
    );
    return (clients * perClient * 1000) / (performance.now() - started);
  };
  const direct = await run((q) => index.search(q, k));
  const batcher = new SearchBatcher(index);
  const batched = await run((q) => batcher.search(q, k));
  return { direct, batched };
}

export async function measureConcurrency(
  sides: { side: string; index: FaissIndex; params: { nprobe?: number } }[],
  queries: Float32Array,
  perClient: number,
): Promise<ThroughputRow[]> {
  const rows: ThroughputRow[] = [];
  for (const { side, index, params } of sides) {
    const searchable: Searchable = { d, search: (q, kk) => index.search(q, kk, params) };
    for (const clients of [1, 8, 32]) {
      log(`throughput: ${side}, ${clients} clients`);
      rows.push({ side, clients, ...(await throughput(searchable, queries, clients, perClient)) });
    }
  }
  return rows;
}

function throughputTable(rows: ThroughputRow[]): string[][] {
  return rows.map((r) => [
    r.side,
    String(r.clients),
    `${r.direct.toFixed(0)}/s`,
    `${r.batched.toFixed(0)}/s`,
    `${(r.batched / r.direct).toFixed(2)}x`,
  ]);
}
const THROUGHPUT_HEADER = ['index', 'clients', 'direct', 'batched', 'gain'];

/** `--concurrency`: the CPU half, on whatever machine runs it. */
export async function compareConcurrency(quick: boolean): Promise<void> {
  const n = quick ? 20_000 : 200_000;
  log(`generating ${n} x ${d} clustered vectors`);
  const base = clustered(n, 1);
  const queries = clustered(1_000, 2);
  const flat = await FaissIndex.create({ dimension: d });
  await flat.add(base);
  const plan = planIndex(n, 1);
  const ivf = await FaissIndex.create({ dimension: d, description: plan.description });
  await ivf.train(base.subarray(0, Math.min(n, 64 * Number(/IVF(\d+)/.exec(plan.description)![1])) * d));
  await ivf.add(base);
  const rows = await measureConcurrency(
    [
      { side: `CPU Flat ${n.toLocaleString('en')}`, index: flat, params: {} },
      {
        side: `CPU ${plan.description} nprobe ${nprobeFor(plan.description)}`,
        index: ivf,
        params: { nprobe: nprobeFor(plan.description)! },
      },
    ],
    queries,
    quick ? 5 : 20,
  );
  printTable(
    `Concurrent clients, single queries of ${d} dims, k = ${k} (${describeMachine()}, FAISS ${faissVersion()})`,
    THROUGHPUT_HEADER,
    throughputTable(rows),
  );
  writeFigures('native-concurrency', { n, d, k, rows, machine: describeMachine() }, quick);
  flat.close();
  ivf.close();
}

/** `--gpu`. Refuses, in one line and with a non-zero exit, where there is no GPU to measure. */
export async function compareGpu(quick: boolean): Promise<void> {
  const addon = process.env.OCVECTOR_NATIVE_PATH ?? join(root, 'build/gpu/Release/ocvector.node');
  if (!existsSync(addon)) {
    process.stderr.write(
      `bench:native --gpu: cannot run: no GPU addon at ${addon} (bash scripts/build-gpu.sh builds it, on a machine with an NVIDIA GPU)\n`,
    );
    process.exit(1);
  }
  setNativeAddonPath(addon);
  const gpu = gpuInfo();
  if (!gpu.compiled || gpu.devices === 0) {
    process.stderr.write(`bench:native --gpu: cannot run: ${gpu.reason}\n`);
    process.exit(1);
  }
  const device = deviceName();
  const n = quick ? 100_000 : 1_000_000;
  const nq = 1_000;
  const singles = quick ? 20 : 100;
  const rounds = quick ? 2 : 3;
  log(`${device}; ${describeMachine()}; FAISS ${faissVersion()}`);
  log(`generating ${n} x ${d} clustered vectors and ${nq} queries`);
  const base = clustered(n, 1);
  const queries = clustered(nq, 2);
  const memoryBefore = deviceMemoryMiB();

  // ---- Flat ----
  log('Flat: add on the CPU and on the GPU');
  const cpuFlat = await FaissIndex.create({ dimension: d });
  const cpuFlatAdd = (await timed(() => cpuFlat.add(base))).ms;
  const gpuFlat = await FaissIndex.create({ dimension: d, device: 'gpu' });
  const gpuFlatAdd = (await timed(() => gpuFlat.add(base))).ms;
  const flatMemory = deviceMemoryMiB();
  const copyToGpu = (await timed(async () => (await cpuFlat.copyTo('gpu')).close())).ms;
  log('Flat: one query, then 1,000 batched');
  const flat = {
    cpuSingle: await singleQueryMs((q) => cpuFlat.search(q, k), queries, singles),
    gpuSingle: await singleQueryMs((q) => gpuFlat.search(q, k), queries, singles),
    cpuBatch: await batchMs((q) => cpuFlat.search(q, k), queries, rounds),
    gpuBatch: await batchMs((q) => gpuFlat.search(q, k), queries, rounds),
  };
  const truth = await gpuFlat.search(queries, k);
  const cpuTruth = await cpuFlat.search(queries, k);
  const flatAgreement = recallAtK(truth.labels, cpuTruth.labels, nq, k);

  // ---- IVF, as VectorIndex plans it at this size ----
  const plan = planIndex(n, 1);
  const nprobe = nprobeFor(plan.description)!;
  const nlist = Number(/IVF(\d+)/.exec(plan.description)![1]);
  log(`${plan.description}: trained on the GPU (${Math.min(n, 64 * nlist)} vectors), then added on each side`);
  const trainer = await FaissIndex.create({ dimension: d, description: plan.description, device: 'gpu' });
  const trainMs = (await timed(() => trainer.train(base.subarray(0, Math.min(n, 64 * nlist) * d)))).ms;
  const cpuIvf = await trainer.copyTo('cpu');
  const gpuIvf = await trainer.copyTo('gpu');
  trainer.close();
  const cpuIvfAdd = (await timed(() => cpuIvf.add(base))).ms;
  const gpuIvfAdd = (await timed(() => gpuIvf.add(base))).ms;
  const ivfMemory = deviceMemoryMiB();
  const params = { nprobe };
  const ivf = {
    cpuSingle: await singleQueryMs((q) => cpuIvf.search(q, k, params), queries, singles),
    gpuSingle: await singleQueryMs((q) => gpuIvf.search(q, k, params), queries, singles),
    cpuBatch: await batchMs((q) => cpuIvf.search(q, k, params), queries, rounds),
    gpuBatch: await batchMs((q) => gpuIvf.search(q, k, params), queries, rounds),
    cpuRecall: recallAtK((await cpuIvf.search(queries, k, params)).labels, truth.labels, nq, k),
    gpuRecall: recallAtK((await gpuIvf.search(queries, k, params)).labels, truth.labels, nq, k),
  };

  // ---- concurrency, at this size ----
  const concurrency = await measureConcurrency(
    [
      { side: `CPU Flat`, index: cpuFlat, params: {} },
      { side: `GPU Flat`, index: gpuFlat, params: {} },
      { side: `CPU ${plan.description}`, index: cpuIvf, params },
      { side: `GPU ${plan.description}`, index: gpuIvf, params },
    ],
    queries,
    quick ? 5 : 20,
  );
  for (const index of [cpuFlat, gpuFlat, cpuIvf, gpuIvf]) index.close();

  // ---- Flat crossover: the smallest size where one query is faster on the GPU ----
  const sizes = [10_000, 30_000, 100_000, 300_000, 1_000_000].filter((size) => size <= n);
  const crossover: { size: number; cpu: number; gpu: number; copy: number }[] = [];
  for (const size of sizes) {
    log(`crossover: Flat at ${size}`);
    const cpu = await FaissIndex.create({ dimension: d });
    await cpu.add(base.subarray(0, size * d));
    const { result: onGpu, ms: copy } = await timed(() => cpu.copyTo('gpu'));
    crossover.push({
      size,
      cpu: await singleQueryMs((q) => cpu.search(q, k), queries, singles),
      gpu: await singleQueryMs((q) => onGpu.search(q, k), queries, singles),
      copy,
    });
    cpu.close();
    onGpu.close();
  }
  const firstGpuWin = crossover.find((row) => row.gpu < row.cpu)?.size;

  // ---- report ----
  const mem = (value: number) => (Number.isNaN(value) ? 'n/a' : `${value.toFixed(0)} MiB`);
  const size = `${n.toLocaleString('en')} × ${d}`;
  const mainRows = [
    ['Flat', 'add (all vectors)', ms(cpuFlatAdd, 0), ms(gpuFlatAdd, 0), `${(cpuFlatAdd / gpuFlatAdd).toFixed(1)}x`],
    [
      'Flat',
      '1 query (p50)',
      ms(flat.cpuSingle),
      ms(flat.gpuSingle),
      `${(flat.cpuSingle / flat.gpuSingle).toFixed(1)}x`,
    ],
    [
      'Flat',
      `${nq.toLocaleString('en')} batched`,
      ms(flat.cpuBatch, 0),
      ms(flat.gpuBatch, 0),
      `${(flat.cpuBatch / flat.gpuBatch).toFixed(1)}x`,
    ],
    [
      plan.description,
      'add (all vectors)',
      ms(cpuIvfAdd, 0),
      ms(gpuIvfAdd, 0),
      `${(cpuIvfAdd / gpuIvfAdd).toFixed(1)}x`,
    ],
    [
      plan.description,
      `1 query, nprobe ${nprobe} (p50)`,
      ms(ivf.cpuSingle),
      ms(ivf.gpuSingle),
      `${(ivf.cpuSingle / ivf.gpuSingle).toFixed(1)}x`,
    ],
    [
      plan.description,
      `${nq.toLocaleString('en')} batched, nprobe ${nprobe}`,
      ms(ivf.cpuBatch, 0),
      ms(ivf.gpuBatch, 0),
      `${(ivf.cpuBatch / ivf.gpuBatch).toFixed(1)}x`,
    ],
  ];
  const header = ['index', 'case', 'CPU', 'GPU', 'GPU speed-up'];
  printTable(
    `GPU against CPU: ${size}, k = ${k}, inner product (${device}; ${describeMachine()}; FAISS ${faissVersion()})`,
    header,
    mainRows,
  );
  const notes = [
    `Device memory: ${mem(memoryBefore)} before, ${mem(flatMemory)} with the Flat index, ${mem(ivfMemory)} with the IVF one too (nvidia-smi, this process). ` +
      `Copying the Flat index to the GPU (copyTo): ${ms(copyToGpu, 0)}. IVF trained on the GPU in ${ms(trainMs, 0)}. ` +
      `Recall@10 against exact search: IVF ${ivf.cpuRecall.toFixed(3)} on the CPU, ${ivf.gpuRecall.toFixed(3)} on the GPU; GPU Flat top-10 against CPU Flat: ${flatAgreement.toFixed(4)}.`,
  ];
  const crossoverRows = crossover.map((row) => [
    row.size.toLocaleString('en'),
    ms(row.cpu),
    ms(row.gpu),
    ms(row.copy, 0),
    row.gpu < row.cpu ? 'GPU' : 'CPU',
  ]);
  const crossoverHeader = ['Flat vectors', 'CPU 1 query (p50)', 'GPU 1 query (p50)', 'copy to GPU', 'faster'];
  printTable('Crossover: one query, Flat', crossoverHeader, crossoverRows);
  printTable('Concurrent clients (single queries, k = 10)', THROUGHPUT_HEADER, throughputTable(concurrency));
  process.stdout.write(
    `\n${notes.join('\n')}\nFirst size where one query is faster on the GPU: ${firstGpuWin ?? 'none measured'}\n`,
  );

  writeFigures(
    'native-gpu',
    {
      device,
      n,
      d,
      k,
      nq,
      flat,
      ivf,
      cpuFlatAdd,
      gpuFlatAdd,
      cpuIvfAdd,
      gpuIvfAdd,
      trainMs,
      copyToGpu,
      memoryBefore,
      flatMemory,
      ivfMemory,
      flatAgreement,
      plan,
      nprobe,
      crossover,
      firstGpuWin,
      concurrency,
    },
    quick,
  );
  if (!quick) {
    replaceGeneratedSection(
      join(root, PAGES.performance),
      'gpu',
      [
        markdownTable(header, mainRows),
        '',
        ...notes,
        '',
        markdownTable(crossoverHeader, crossoverRows),
        '',
        `One query is faster on the GPU from ${firstGpuWin?.toLocaleString('en') ?? '(none of these sizes)'} vectors (VectorIndex's gpuMinVectors).`,
        '',
        markdownTable(THROUGHPUT_HEADER, throughputTable(concurrency)),
        '',
        `Device: ${device}. Machine: ${describeMachine()}. FAISS ${faissVersion()} (the GPU build, its CPU code too).`,
      ].join('\n'),
    );
    log(`${PAGES.performance}: gpu section updated`);
  }
}
