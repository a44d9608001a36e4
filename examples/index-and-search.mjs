// Index a directory and search it, with the library (the CLIs wrap the same calls).
// No model is needed: tree-sitter finds the code elements and the built-in
// embedder turns them into vectors; an Ollama server, when one answers, is used
// instead (set OCVECTOR_EMBEDDER=builtin and OCVECTOR_LLM=off to keep it out).
//
//   npm run demo -- [directory] [query]      (after `bash scripts/setup.sh`)
//   default: this repository's src/, "write the index file atomically"
import { resolve } from 'node:path';
import { Indexer, chooseEmbedder, openIndex } from 'ocvector';

const directory = resolve(process.argv[2] ?? new URL('../src', import.meta.url).pathname);
const query = process.argv[3] ?? 'write the index file atomically';

// 1. Index. A second run only looks at what changed (try it: run the demo twice).
const indexer = new Indexer({
  path: directory,
  onEvent: (event) => {
    if (event.type === 'progress' && (event.done % 25 === 0 || event.done === event.total)) {
      process.stderr.write(`\rindexing: ${event.done}/${event.total} files`);
    }
  },
});
const summary = await indexer.run();
process.stderr.write('\n');
const { files, elements } = summary;
console.log(
  `indexed ${indexer.root} into ${summary.indexDir} in ${summary.durationMs.toFixed(0)} ms with ${summary.embedder}:\n` +
    `  files: ${files.added} added, ${files.changed} changed, ${files.unchanged} unchanged, ${files.deleted} deleted, ${files.skipped} skipped\n` +
    `  elements: ${elements.total} (${elements.added} embedded now, ${elements.kept} kept)`,
);

// 2. Search: embed the query with the index's own embedder, ask FAISS, read the rows.
const index = await openIndex(summary.indexDir);
try {
  const embedder = await chooseEmbedder(undefined, index.embedder.id);
  await embedder.init({ dimension: index.embedder.dimension });
  const k = Math.min(5, index.vectors.ntotal);
  const { labels, distances } = await index.vectors.index.search(await embedder.embedQuery(query), k, index.vectors.nprobe ? { nprobe: index.vectors.nprobe } : {});
  const row = index.store.db.prepare(
    `SELECT f.path, e.start_line AS start, e.end_line AS end, e.element_type AS type, e.element_name AS name
     FROM elements e JOIN files f ON f.id = e.file_id WHERE e.vector_id = ?`,
  );
  console.log(`\n"${query}":`);
  labels.forEach((label, i) => {
    const hit = row.get(Number(label));
    if (hit) console.log(`  ${distances[i].toFixed(3)}  ${hit.path}:${hit.start}-${hit.end}  ${hit.type} ${hit.name}`);
  });
} finally {
  index.close();
}
