/**
 * Searches restricted to a set of ids (`search(q, k, { allowed })`, issue 27)
 * against the unrestricted search, in one run on the same index and queries.
 *
 *   npm run bench:native -- --allowed [--quick]
 *
 * 100,000 × 768 clustered vectors (20,000 with --quick), k = 10, sets of 10%
 * and 1% of the ids drawn at random. Indexes: Flat and IVF as the store makes
 * them at this size (Flat with ids; IVF1024 with the caller's ids, nprobe 64),
 * and HNSW32 (efSearch 64). Times are medians of single queries (and per
 * query of 64 batched, Flat), measured in alternating rounds: unrestricted,
 * 10%, 1%. Recall@10 is against exact search over the set. Figures go to
 * bench/out/native-allowed.json; docs/performance.md quotes them by hand.
 */
import { FaissIndex, type KnnResult, type SearchParams, faissVersion, getNumThreads } from '../../src/index.js';
// An internal bench: Flat and IVF as the embedded store plans its FAISS file at each size.
import { nprobeFor, planIndex } from '../../src/store/embedded/index-plan.js';
import { clusteredVectors, recallAtK } from '../../test/helpers/vectors.js';
import { describeMachine } from '../../eval/lib/machine.js';
import { writeFigures } from './out.js';
import { median, ms, printTable, timed } from '../../eval/lib/stats.js';

const d = 768;
const k = 10;
const batch = 64;
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

/** `count` distinct ids below n, chosen at random (fixed seed), ascending. */
function randomSet(n: number, count: number, seed: number): BigInt64Array {
  const chosen = new Set<number>();
  let x = seed;
  while (chosen.size < count) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    chosen.add(x % n);
  }
  return new BigInt64Array([...chosen].sort((a, b) => a - b).map(BigInt));
}

interface Case {
  name: string;
  params: SearchParams;
}

interface Row {
  index: string;
  mode: string;
  unrestricted: number;
  tenth: number;
  hundredth: number;
  recallTenth: number;
  recallHundredth: number;
}

/**
 * Medians per case of `rounds` × `perRound` single queries, the cases taking
 * turns within each round; and the labels of each case for queries 0..nq-1.
 */
async function alternate(
  index: FaissIndex,
  queries: Float32Array,
  cases: Case[],
  rounds: number,
  perRound: number,
  rowsPerCall: number,
): Promise<{ ms: number[]; labels: BigInt64Array[] }> {
  const times = cases.map(() => [] as number[]);
  const labels = cases.map(() => new BigInt64Array(rounds * perRound * rowsPerCall * k));
  for (const c of cases) await index.search(queries.subarray(0, rowsPerCall * d), k, c.params);
  for (let r = 0; r < rounds; r++) {
    for (const [i, c] of cases.entries()) {
      for (let j = 0; j < perRound; j++) {
        const first = (r * perRound + j) * rowsPerCall;
        const q = queries.subarray(first * d, (first + rowsPerCall) * d);
        const { result, ms: took } = await timed(() => index.search(q, k, c.params));
        times[i]!.push(took / rowsPerCall);
        labels[i]!.set(result.labels, first * k);
      }
    }
  }
  return { ms: times.map(median), labels };
}

export async function compareAllowed(quick: boolean): Promise<void> {
  const n = quick ? 20_000 : 100_000;
  const rounds = quick ? 2 : 5;
  const perRound = 10;
  const nq = rounds * perRound;
  log(`${describeMachine()}; FAISS ${faissVersion()}; ${getNumThreads()} threads`);
  log(`generating ${n} x ${d} clustered, normalised vectors and ${nq * batch} queries`);
  const base = clusteredVectors(n, d, 1);
  const queries = clusteredVectors(nq * batch, d, 2);
  const sets = { tenth: randomSet(n, n / 10, 7), hundredth: randomSet(n, n / 100, 8) };
  const ids = new BigInt64Array(n).map((_, i) => BigInt(i));

  log('exact answers over each set (Flat)');
  const flat = await FaissIndex.create({ dimension: d, metric: 'ip', ids: true });
  await flat.addWithIds(base, ids);
  const truth = {
    tenth: await flat.search(queries.subarray(0, nq * d), k, { allowed: sets.tenth }),
    hundredth: await flat.search(queries.subarray(0, nq * d), k, { allowed: sets.hundredth }),
  };

  const plan = planIndex(n, quick ? n : 100_000);
  const ivfDescription = plan.description.startsWith('IVF') ? plan.description : 'IVF1024,Flat';
  const nprobe = nprobeFor(ivfDescription)!;
  log(`${ivfDescription}: training and adding (nprobe ${nprobe})`);
  const ivf = await FaissIndex.create({ dimension: d, description: ivfDescription, metric: 'ip' });
  await ivf.train(base);
  await ivf.addWithIds(base, ids);

  log('HNSW32: building');
  const hnsw = await FaissIndex.create({ dimension: d, description: 'HNSW32,Flat', metric: 'ip' });
  await hnsw.add(base);

  const casesFor = (extra: SearchParams): Case[] => [
    { name: 'unrestricted', params: extra },
    { name: '10%', params: { ...extra, allowed: sets.tenth } },
    { name: '1%', params: { ...extra, allowed: sets.hundredth } },
  ];
  const recall = (labels: BigInt64Array, exact: KnnResult, calls: number) =>
    recallAtK(labels.subarray(0, calls * k), exact.labels.subarray(0, calls * k), calls, k);

  const rows: Row[] = [];
  const measure = async (name: string, index: FaissIndex, extra: SearchParams, mode: 'single' | 'batch') => {
    log(`${name}: ${mode}`);
    const rowsPerCall = mode === 'single' ? 1 : batch;
    const calls = mode === 'single' ? perRound : 2;
    const { ms: times, labels } = await alternate(index, queries, casesFor(extra), rounds, calls, rowsPerCall);
    const answered = Math.min(nq, rounds * calls * rowsPerCall);
    rows.push({
      index: name,
      mode: mode === 'single' ? '1 query' : `${batch} batched, per query`,
      unrestricted: times[0]!,
      tenth: times[1]!,
      hundredth: times[2]!,
      recallTenth: recall(labels[1]!, truth.tenth, answered),
      recallHundredth: recall(labels[2]!, truth.hundredth, answered),
    });
  };
  await measure('Flat', flat, {}, 'single');
  await measure('Flat', flat, {}, 'batch');
  await measure(`${ivfDescription}, nprobe ${nprobe}`, ivf, { nprobe }, 'single');
  await measure('HNSW32, efSearch 64', hnsw, { efSearch: 64 }, 'single');
  for (const index of [flat, ivf, hnsw]) index.close();

  printTable(
    `Search restricted to a set of ids: ${n} x ${d}, k=${k}, inner product, random sets of 10% and 1% (medians)`,
    ['index', 'queries', 'unrestricted', '10% set', '1% set', 'recall@10, 10%', 'recall@10, 1%'],
    rows.map((r) => [
      r.index,
      r.mode,
      ms(r.unrestricted, 3),
      ms(r.tenth, 3),
      ms(r.hundredth, 3),
      r.recallTenth.toFixed(3),
      r.recallHundredth.toFixed(3),
    ]),
  );
  writeFigures(
    'native-allowed',
    { machine: describeMachine(), faiss: faissVersion(), threads: getNumThreads(), n, d, k, rows },
    quick,
  );
}
