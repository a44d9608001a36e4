/**
 * How many vectors an IVF index is trained on, over an existing index's
 * vectors (issue 41): training on fewer vectors a list is faster and holds
 * less memory during a rebuild; what it costs is recall. For each sample size
 * (vectors per IVF list), in one process: the training time, and recall@10
 * against exact search (Flat) with the store's nprobe, for queries the
 * benchmarks pick from the index's own descriptions and names, embedded by
 * the index's embedder.
 *
 *   npm run bench:ivf-training -- --index <index directory> [--per-list 40,64,256] [--queries 200]
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { FaissIndex } from '../src/native/faiss-index.js';
// An internal bench: IVF training of the embedded store's FAISS file, over an existing index's vectors.
import { openIndex } from '../src/store/embedded/open-index.js';
import { nprobeFor, planIndex } from '../src/store/embedded/index-plan.js';
import { VECTOR_INDEX_DEFAULTS } from '../src/store/embedded/vector-file.js';
import { readTrainingSample } from '../src/store/embedded/vector-pages.js';
import { embedderFromId } from '../src/vector/choose.js';
import { pickQueries } from './lib/corpus.js';
import { indexVectors } from './lib/index-vectors.js';
import { describeMachine } from '../eval/lib/machine.js';
import { ms, printTable } from '../eval/lib/stats.js';

const { values } = parseArgs({
  options: {
    index: { type: 'string' },
    'per-list': { type: 'string', default: '40,64,256' },
    queries: { type: 'string', default: '200' },
  },
});
if (!values.index) {
  process.stderr.write('bench:ivf-training: name --index <an index directory>\n');
  process.exit(2);
}
const indexDir = resolve(values.index);
const { ids, vectors } = await indexVectors(indexDir);
// The training samples are read as a rebuild reads them: the database, and the vectors it no longer keeps from the file.
const opened = await openIndex(indexDir);
const { store, embedder: record } = opened;
const d = record.dimension;
const total = ids.length;
const { description } = planIndex(total, Math.min(total, VECTOR_INDEX_DEFAULTS.approximateThreshold));
const nlist = Number(/^IVF(\d+)/.exec(description)![1]);
const nprobe = nprobeFor(description)!;

const embedder = embedderFromId(record.id);
if (!embedder) throw new Error(`no backend here makes ${record.id}`);
await embedder.init();
const texts = pickQueries(indexDir, Number(values.queries));
const queries = new Float32Array(texts.length * d);
for (const [q, text] of texts.entries()) queries.set(await embedder.embedQuery(text), q * d);

const flat = await FaissIndex.create({ dimension: d, description: 'Flat', ids: true });
await flat.addWithIds(vectors, ids);
const truth = await flat.search(queries, 10);
flat.close();

const rows: string[][] = [];
for (const perList of values['per-list']!.split(',').map(Number)) {
  const sample = await readTrainingSample(store, record, total, perList * nlist, { previous: opened.vectors.index });
  const ivf = await FaissIndex.create({ dimension: d, description, metric: 'ip' });
  const started = performance.now();
  await ivf.train(sample);
  const trainMs = performance.now() - started;
  await ivf.addWithIds(vectors, ids);
  const found = await ivf.search(queries, 10, { nprobe });
  let hits = 0;
  for (let q = 0; q < texts.length; q++) {
    const want = new Set(truth.labels.subarray(q * 10, (q + 1) * 10));
    for (const label of found.labels.subarray(q * 10, (q + 1) * 10)) if (want.has(label)) hits++;
  }
  ivf.close();
  rows.push([
    `${perList} a list`,
    (sample.length / d).toLocaleString('en-US'),
    `${((sample.byteLength / 2 ** 20) * 2).toFixed(0)} MiB`,
    ms(trainMs, 0),
    (hits / (10 * texts.length)).toFixed(3),
  ]);
}
opened.close();
printTable(
  `IVF training sample, ${total.toLocaleString('en-US')} vectors of ${d} dimensions, ${description}, nprobe ${nprobe}, ${texts.length} queries (${describeMachine()})`,
  ['sample', 'vectors', 'held while training (JS + native copy)', 'train', 'recall@10 vs Flat'],
  rows,
);
