/**
 * A FAISS index of float32 vectors (`Flat`, the default) against one of
 * float16 (`SQfp16`, half the file), over an existing index's vectors, in one
 * process, built twice each, alternating: file size, one-query search time,
 * and how many of the top 10 agree. For the question of keeping the FAISS
 * file at half precision too (docs/performance.md, "Vectors at half precision").
 *
 *   npm run bench:faiss-precision -- --index <index directory> [--queries 200]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { FaissIndex } from '../src/native/faiss-index.js';
import { openIndex } from '../src/store/embedded/open-index.js';
import { describeMachine } from './lib/machine.js';
import { ms, percentile, printTable } from './lib/stats.js';

const { values } = parseArgs({ options: { index: { type: 'string' }, queries: { type: 'string', default: '200' } } });
if (!values.index) {
  process.stderr.write('bench:faiss-precision: name --index <an index directory>\n');
  process.exit(2);
}
const opened = await openIndex(resolve(values.index));
const embedder = opened.store.embedder!;
const { ids, vectors } = opened.store.vectors(embedder);
opened.close();
const d = embedder.dimension;
// The queries are vectors of the index itself, spread over it: each has itself as its best answer.
const queries = Array.from({ length: Number(values.queries) }, (_, q) => {
  const at = (q * 997) % ids.length;
  return vectors.subarray(at * d, (at + 1) * d);
});

const work = mkdtempSync(join(tmpdir(), 'ocvector-bench-precision-'));
const rows: string[][] = [];
const answers = new Map<string, number[][]>();
try {
  for (const [round, description] of ['Flat', 'SQfp16', 'Flat', 'SQfp16'].entries()) {
    const index = await FaissIndex.create({ dimension: d, description, metric: 'ip', ids: true });
    if (!index.isTrained) await index.train(vectors.subarray(0, d * Math.min(ids.length, 4096)));
    await index.addWithIds(vectors, ids);
    const file = join(work, `${round}.faiss`);
    await index.write(file);
    const times: number[] = [];
    const top: number[][] = [];
    for (const query of queries) {
      const started = performance.now();
      const { labels } = await index.search(query, 10);
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
const flat = answers.get('Flat')!;
const half = answers.get('SQfp16')!;
let agree = 0;
for (const [i, list] of half.entries()) agree += list.filter((id) => flat[i]!.includes(id)).length;
printTable(
  `FAISS float32 against float16, ${ids.length.toLocaleString('en-US')} vectors of ${d} dimensions, one query a search (${describeMachine()})`,
  ['index', 'file', 'p50', 'p95'],
  rows,
);
process.stdout.write(`\ntop 10 shared with Flat: ${((100 * agree) / (10 * half.length)).toFixed(2)}%\n`);
