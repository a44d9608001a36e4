/**
 * Indexing throughput, re-index cost, and the Ollama path's overhead.
 *
 *   npm run bench:indexing            (add --quick for a smaller run)
 *
 * 1. Full index, AST analysis and the built-in embedder, of two real corpora
 *    available offline: the TypeScript compiler's lib/ (*.d.ts and *.js, up to
 *    9 MB a file, so the size limit is raised to 16 MiB) and this repository.
 *    Also: SQLite writes alone (rows + FTS5) and the embedder alone, in the
 *    same process, on the same documents.
 * 2. Re-index at about 110,000 elements (8 copies of the compiler lib): nothing
 *    changed, and one file changed, against a bare scan of the same tree.
 * 3. The Ollama path against the test server with a fixed delay per embed
 *    call: wall time over the ideal (calls x delay / concurrency).
 * 4. Where the index type changes: exact search against the IVF index the
 *    store would build, at 100k and 200k clustered 512-d vectors (the built-in
 *    embedder's width). `--index-type` runs this part alone.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  analyzeText,
  BuiltinEmbedder,
  buildDocuments,
  FaissIndex,
  IndexStore,
  Indexer,
  nprobeFor,
  planIndex,
  scanRoot,
  type ElementDocument,
  type IndexSummary,
} from '../src/internal.js';
import { FakeOllama } from '../test/helpers/fake-ollama.js';
import { clusteredVectors } from '../test/helpers/vectors.js';
import { describeMachine } from '../eval/lib/machine.js';
import { writeFigures } from './lib/out.js';
import { markdownTable, PAGES, replaceGeneratedSection } from '../eval/lib/readme.js';
import { mib, ms, printTable } from '../eval/lib/stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const quick = process.argv.includes('--quick');
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);
const work = mkdtempSync(join(tmpdir(), 'ocvector-bench-'));
const LIB = join(root, 'node_modules/typescript/lib');
const libFiles = readdirSync(LIB).filter((f) => /\.(d\.ts|js)$/.test(f));

function copyLib(target: string, copies: number): void {
  for (let c = 0; c < copies; c++) for (const f of libFiles) cpSync(join(LIB, f), join(target, `copy${c}`, f));
}

interface FullFigures {
  corpus: string;
  summary: IndexSummary;
  dbBytes: number;
  faissBytes: number;
  peakRss: number;
}

async function fullIndex(corpus: string, path: string, indexDir: string): Promise<FullFigures> {
  rmSync(indexDir, { recursive: true, force: true });
  const summary = await new Indexer({
    path,
    indexDir,
    embedder: 'builtin',
    llm: false,
    limits: { maxBytes: 16 << 20 },
  }).run();
  const files = readdirSync(indexDir);
  const sizeOf = (test: (name: string) => boolean) =>
    files.filter(test).reduce((sum, name) => sum + statSync(join(indexDir, name)).size, 0);
  const figures = {
    corpus,
    summary,
    dbBytes: sizeOf((n) => n.startsWith('index.db')),
    faissBytes: sizeOf((n) => n.endsWith('.ocvx')),
    peakRss: process.resourceUsage().maxRSS * 1024,
  };
  log(`${corpus}: ${summary.files.scanned} files, ${summary.elements.total} elements in ${ms(summary.durationMs, 0)}`);
  return figures;
}

/** The same documents written by the store alone (rows + FTS5) and embedded alone. */
async function componentRates(
  paths: string[],
): Promise<{ documents: number; sqlitePerSec: number; embedPerSec: number }> {
  const files = paths.map((path) => {
    const text = readFileSync(path, 'utf8');
    return { path, documents: buildDocuments(analyzeText(path, text), text.split('\n')) };
  });
  const documents = files.reduce((n, f) => n + f.documents.length, 0);
  const embedder = new BuiltinEmbedder();
  const all: ElementDocument[] = files.flatMap((f) => f.documents);
  embedder.embedDocumentsSync(all.slice(0, 500).map((d) => d.embeddingText)); // warm the JIT
  let start = performance.now();
  const vectors = embedder.embedDocumentsSync(all.map((d) => d.embeddingText));
  const embedMs = performance.now() - start;

  const dir = join(work, 'store-only');
  rmSync(dir, { recursive: true, force: true });
  const store = IndexStore.open(dir);
  const rootId = store.rootId('/bench');
  start = performance.now();
  let row = 0;
  for (let i = 0; i < files.length; i += 64) {
    store.transaction(() => {
      for (const file of files.slice(i, i + 64)) {
        const written = store.writeFile(
          rootId,
          { path: file.path, language: 'typescript', size: 1, mtimeMs: 1, hash: 'h', status: 'indexed', error: null },
          file.documents,
          1,
        );
        for (const added of written.added)
          store.putEmbedding(embedder.id, added.document.hash, vectors.subarray(row * 512, ++row * 512));
      }
    });
  }
  const sqliteMs = performance.now() - start;
  store.close();
  return { documents, sqlitePerSec: documents / (sqliteMs / 1000), embedPerSec: documents / (embedMs / 1000) };
}

async function reindexCost(copies: number): Promise<{
  elements: number;
  files: number;
  scanMs: number;
  noChangeMs: number;
  oneFileMs: number;
  oneFile: IndexSummary;
}> {
  const tree = join(work, 'large');
  rmSync(tree, { recursive: true, force: true });
  copyLib(tree, copies);
  const indexDir = join(work, 'large-index');
  rmSync(indexDir, { recursive: true, force: true });
  const options = { path: tree, indexDir, embedder: 'builtin' as const, llm: false, limits: { maxBytes: 16 << 20 } };
  const first = await new Indexer(options).run();
  log(`large: ${first.elements.total} elements, full index ${ms(first.durationMs, 0)}`);
  // Files written a moment ago are re-hashed once (racy mtimes); a second run settles them.
  await new Indexer(options).run();
  const scans: number[] = [];
  const noChange: number[] = [];
  for (let i = 0; i < 5; i++) {
    let start = performance.now();
    await scanRoot(tree);
    scans.push(performance.now() - start);
    start = performance.now();
    await new Indexer(options).run();
    noChange.push(performance.now() - start);
  }
  const target = join(tree, 'copy0', 'lib.es2015.promise.d.ts');
  writeFileSync(
    target,
    readFileSync(target, 'utf8').replace(
      'interface PromiseConstructor {',
      'interface PromiseConstructor {\n    /** Edited for the benchmark. */\n    edited(): void;',
    ),
  );
  const start = performance.now();
  const oneFile = await new Indexer(options).run();
  const oneFileMs = performance.now() - start;
  return {
    elements: first.elements.total,
    files: first.files.scanned,
    scanMs: Math.min(...scans),
    noChangeMs: Math.min(...noChange),
    oneFileMs,
    oneFile,
  };
}

async function ollamaOverhead(
  corpus: string,
  delayMs: number,
  concurrency: number,
): Promise<{ documents: number; calls: number; wallMs: number; idealMs: number }> {
  const fake = await FakeOllama.start({
    embed: (request) => ({
      delayMs,
      body: { embeddings: (request.input as string[]).map((t) => [t.length % 7, 1, 2, 3, 4, 5, 6, 7]) },
    }),
  });
  try {
    const indexDir = join(work, `ollama-${concurrency}`);
    rmSync(indexDir, { recursive: true, force: true });
    const summary = await new Indexer({
      path: corpus,
      indexDir,
      embedder: { host: fake.url, model: 'bench-embed', batchSize: 32 },
      embeddingConcurrency: concurrency,
      llm: false,
    }).run();
    // The init probe is one more call, made before any file is read.
    const calls = fake.embeds.length;
    return {
      documents: summary.embeddings.computed,
      calls,
      wallMs: summary.durationMs,
      idealMs: (Math.ceil((calls - 1) / concurrency) + 1) * delayMs,
    };
  } finally {
    await fake.close();
  }
}

/** Single-query latency of Flat against the planned IVF index, its build cost and recall@10. */
async function indexTypeCost(n: number): Promise<string[]> {
  const d = 512;
  const base = clusteredVectors(n, d, 1);
  const queries = clusteredVectors(50, d, 2);
  const ids = BigInt64Array.from({ length: n }, (_, i) => BigInt(i));
  const one = (i: number) => queries.subarray(i * d, (i + 1) * d);
  const flat = await FaissIndex.create({ dimension: d, description: 'Flat', ids: true });
  await flat.addWithIds(base, ids);
  await flat.search(one(0), 10);
  let start = performance.now();
  const truth: BigInt64Array[] = [];
  for (let i = 0; i < 50; i++) truth.push((await flat.search(one(i), 10)).labels);
  const flatMs = (performance.now() - start) / 50;
  const { description } = planIndex(n, 1);
  const ivf = await FaissIndex.create({ dimension: d, description });
  start = performance.now();
  await ivf.train(base);
  await ivf.addWithIds(base, ids);
  const buildMs = performance.now() - start;
  const nprobe = nprobeFor(description)!;
  let hits = 0;
  start = performance.now();
  for (let i = 0; i < 50; i++) {
    const want = new Set(truth[i]);
    for (const label of (await ivf.search(one(i), 10, { nprobe })).labels) if (want.has(label)) hits++;
  }
  const ivfMs = (performance.now() - start) / 50;
  flat.close();
  ivf.close();
  return [
    `${n.toLocaleString('en')} × 512`,
    ms(flatMs, 1),
    `${description}, nprobe ${nprobe}`,
    ms(buildMs, 0),
    ms(ivfMs, 2),
    (hits / 500).toFixed(3),
  ];
}

const typeHeader = [
  'vectors',
  'Flat, 1 query',
  'IVF the store builds',
  'IVF train + add',
  'IVF, 1 query',
  'IVF recall@10',
];
if (process.argv.includes('--index-type')) {
  const typeRows = [await indexTypeCost(100_000), await indexTypeCost(200_000)];
  printTable('Index type: exact against IVF (2 threads)', typeHeader, typeRows);
  replaceGeneratedSection(
    join(root, PAGES.performance),
    'index-type',
    `${markdownTable(typeHeader, typeRows)}\n\n${describeMachine()}.`,
  );
  rmSync(work, { recursive: true, force: true });
  process.exit(0);
}

try {
  const repoIndexDir = join(work, 'repo-index');
  const libTree = join(work, 'lib');
  copyLib(libTree, 1);
  const full = [
    await fullIndex('this repository', root, repoIndexDir),
    await fullIndex('compiler lib (typescript/lib)', libTree, join(work, 'lib-index')),
  ];
  const rates = await componentRates(libFiles.map((f) => join(LIB, f)).filter((p) => statSync(p).size < 16 << 20));
  const copies = quick ? 2 : 8;
  const large = await reindexCost(copies);
  // The .d.ts half of the compiler lib: thousands of documents, so start-up does not hide in the figure.
  const dts = join(work, 'dts');
  for (const f of libFiles.filter((name) => name.endsWith('.d.ts'))) cpSync(join(LIB, f), join(dts, f));
  const ollama = [
    { label: '50 ms a call, 2 requests in flight', ...(await ollamaOverhead(dts, 50, 2)) },
    { label: '50 ms a call, 1 request in flight', ...(await ollamaOverhead(dts, 50, 1)) },
    { label: '200 ms a call, 2 requests in flight', ...(await ollamaOverhead(dts, 200, 2)) },
  ];

  const fullHeader = [
    'corpus',
    'files',
    'elements',
    'wall',
    'files/s',
    'elements/s',
    'database',
    'FAISS file',
    'peak RSS so far',
  ];
  const fullRows = full.map((f) => [
    f.corpus,
    String(f.summary.files.scanned),
    String(f.summary.elements.total),
    ms(f.summary.durationMs, 0),
    String(Math.round(f.summary.files.scanned / (f.summary.durationMs / 1000))),
    String(Math.round(f.summary.elements.total / (f.summary.durationMs / 1000))),
    mib(f.dbBytes),
    mib(f.faissBytes),
    mib(f.peakRss),
  ]);
  printTable('Full index (AST analysis + built-in embedder, 2 analysis threads)', fullHeader, fullRows);
  const componentLine = `Same process, the compiler lib's ${rates.documents} documents: SQLite writes (element rows, FTS5, embedding cache) ${Math.round(rates.sqlitePerSec)} documents/s; built-in embedder ${Math.round(rates.embedPerSec)} documents/s on one core.`;
  process.stdout.write(`${componentLine}\n`);

  const reHeader = [
    're-index at ' + large.elements + ' elements (' + large.files + ' files)',
    'wall',
    'against a bare scan',
  ];
  const reRows = [
    ['bare scan of the tree (readdir + stat)', ms(large.scanMs, 0), '1.00'],
    ['nothing changed', ms(large.noChangeMs, 0), (large.noChangeMs / large.scanMs).toFixed(2)],
    [
      `one file changed (${large.oneFile.elements.added} elements re-embedded, ${large.oneFile.elements.kept} kept)`,
      ms(large.oneFileMs, 0),
      (large.oneFileMs / large.scanMs).toFixed(2),
    ],
  ];
  printTable('Re-index cost', reHeader, reRows);

  const olHeader = [
    'Ollama embedding path (test server, batches of 32)',
    'documents',
    'calls',
    'wall',
    'server time (ideal)',
    'overhead',
  ];
  const olRows = ollama.map((o) => [
    o.label,
    String(o.documents),
    String(o.calls),
    ms(o.wallMs, 0),
    ms(o.idealMs, 0),
    `${(((o.wallMs - o.idealMs) / o.idealMs) * 100).toFixed(1)}%`,
  ]);
  printTable('Ollama embedding path', olHeader, olRows);
  process.stdout.write(`${describeMachine()}\n`);

  writeFigures('indexing', { full, rates, large: { ...large, copies }, ollama }, quick);
  if (!quick) {
    replaceGeneratedSection(
      join(root, PAGES.performance),
      'indexing',
      [
        markdownTable(fullHeader, fullRows),
        componentLine,
        markdownTable(reHeader, reRows),
        markdownTable(olHeader, olRows),
        `"overhead" is wall time beyond the time the server itself needs for those calls at that concurrency. ${describeMachine()}.`,
      ].join('\n\n'),
    );
    log(`${PAGES.performance}: indexing section updated`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
