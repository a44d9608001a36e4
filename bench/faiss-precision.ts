/**
 * A FAISS index of float32 vectors against one of float16 (`SQfp16`, half the
 * file), over an existing index's vectors, in one process, built twice each,
 * alternating: file size, one-query search time, and how many of the top 10
 * agree. Exact indexes (`Flat` against `SQfp16`) by default; with `--ivf`,
 * the IVF index the store plans past its threshold, float32 lists against
 * half-precision ones (`IVF<n>,Flat` against `IVF<n>,SQfp16`, the store's
 * nprobe), as the store keeps them since (docs/performance.md, "Each vector
 * once").
 *
 *   npm run bench:faiss-precision -- --index <index directory> [--ivf] [--queries 200]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { FaissIndex } from '../src/native/faiss-index.js';
// An internal bench: the precision of the embedded store's FAISS file, its lists and nprobe as the store plans them.
import { nlistOf, nprobeFor, planIndex } from '../src/store/embedded/index-plan.js';
import { TRAINING_VECTORS_PER_LIST } from '../src/store/embedded/vector-pages.js';
import { indexVectors } from './lib/index-vectors.js';
import { describeMachine } from '../eval/lib/machine.js';
import { ms, percentile, printTable } from '../eval/lib/stats.js';

const { values } = parseArgs({
  options: {
    index: { type: 'string' },
    ivf: { type: 'boolean', default: false },
    queries: { type: 'string', default: '200' },
  },
});
if (!values.index) {
  process.stderr.write('bench:faiss-precision: name --index <an index directory>\n');
  process.exit(2);
}
const { embedder, ids, vectors } = await indexVectors(resolve(values.index));
const d = embedder.dimension;
const ivf = planIndex(ids.length, 0).description;
const [float32, float16] = values.ivf ? [ivf.replace(',SQfp16', ',Flat'), ivf] : ['Flat', 'SQfp16'];
const nprobe = values.ivf ? nprobeFor(ivf) : undefined;
// The queries are vectors of the index itself, spread over it: each has itself as its best answer.
const queries = Array.from({ length: Number(values.queries) }, (_, q) => {
  const at = (q * 997) % ids.length;
  return vectors.subarray(at * d, (at + 1) * d);
});

const work = mkdtempSync(join(tmpdir(), 'ocvector-bench-precision-'));
const rows: string[][] = [];
const answers = new Map<string, number[][]>();
try {
  for (const [round, description] of [float32, float16, float32, float16].entries()) {
    const index = await FaissIndex.create({ dimension: d, description, metric: 'ip', ids: !values.ivf });
    // IVF as the store trains it: on TRAINING_VECTORS_PER_LIST vectors a list, spread over the index.
    const wanted = Math.min(ids.length, values.ivf ? TRAINING_VECTORS_PER_LIST * nlistOf(ivf)! : 4096);
    if (!index.isTrained) await index.train(spread(vectors, d, wanted));
    await index.addWithIds(vectors, ids);
    const file = join(work, `${round}.faiss`);
    await index.write(file);
    const times: number[] = [];
    const top: number[][] = [];
    for (const query of queries) {
      const started = performance.now();
      const { labels } = await index.search(query, 10, nprobe ? { nprobe } : {});
      times.push(performance.now() - started);
      top.push([...labels].map(Number));
    }
    answers.set(description, top);
    rows.push([
      description,
      `${(statSync(file).size / 1e6).toFixed(1)} MB`,
      ms(percentile(times, 50)),
      ms(percentile(times, 95)),
    ]);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
const flat = answers.get(float32)!;
const half = answers.get(float16)!;
let agree = 0;
for (const [i, list] of half.entries()) agree += list.filter((id) => flat[i]!.includes(id)).length;
printTable(
  `FAISS float32 against float16, ${ids.length.toLocaleString('en-US')} vectors of ${d} dimensions, one query a search${nprobe ? `, nprobe ${nprobe}` : ''} (${describeMachine()})`,
  ['index', 'file', 'p50', 'p95'],
  rows,
);
process.stdout.write(`\ntop 10 shared with ${float32}: ${((100 * agree) / (10 * half.length)).toFixed(2)}%\n`);

/** `rows` of the vectors, spread evenly over them. */
function spread(all: Float32Array, dimension: number, rows: number): Float32Array {
  const total = all.length / dimension;
  const out = new Float32Array(rows * dimension);
  for (let i = 0; i < rows; i++) {
    const at = Math.floor(i * (total / rows));
    out.set(all.subarray(at * dimension, (at + 1) * dimension), i * dimension);
  }
  return out;
}
