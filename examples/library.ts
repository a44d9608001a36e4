// Index a directory and search it with the library: the calls the CLIs make.
// No model is needed: tree-sitter finds the code elements and the built-in
// embedder turns them into vectors. An Ollama server, when one has the
// models, adds descriptions and better vectors. The library reads no
// environment variables; this example follows the CLIs' (OLLAMA_HOST, and
// OCVECTOR_LLM=off and OCVECTOR_EMBEDDER=builtin to keep Ollama out) and
// passes them as options.
//
//   npm run example:library -- [directory] [query]
//   default: this repository's src/, "write the index file atomically"
import { resolve } from 'node:path';
import { Indexer, Searcher, type IndexEvent } from 'ocvector';

const directory = resolve(process.argv[2] ?? new URL('../src', import.meta.url).pathname);
const query = process.argv[3] ?? 'write the index file atomically';

// 1. Index. Events carry progress (the library never prints); a second run
//    only redoes what changed: try running the example twice.
const onEvent = (event: IndexEvent) => {
  if (event.type === 'progress' && (event.done % 25 === 0 || event.done === event.total))
    process.stderr.write(`\rindexing: ${event.done}/${event.total} files`);
};
const ollama = process.env.OLLAMA_HOST ? { host: process.env.OLLAMA_HOST } : {};
const llm = !/^(0|off|false|no)$/i.test(process.env.OCVECTOR_LLM ?? '');
const embedder = process.env.OCVECTOR_EMBEDDER === 'builtin' ? 'builtin' : 'auto';
const indexer = new Indexer({ path: directory, onEvent, ollama, llm, embedder });
const summary = await indexer.run();
process.stderr.write('\n');
const { files, elements } = summary;
console.log(`indexed ${summary.root} in ${summary.durationMs.toFixed(0)} ms with ${summary.embedder}`);
console.log(
  `  files: ${files.added} added, ${files.changed} changed, ${files.unchanged} unchanged, ${files.deleted} deleted, ${files.skipped} skipped`,
);
console.log(`  elements: ${elements.total} (${summary.embeddings.computed} embedded now)`);

// 2. Search: hybrid (vectors and BM25), fused, with the code read from disk.
const searcher = await Searcher.open({ indexDir: summary.indexDir, ollama });
try {
  const response = await searcher.search(query, { k: 5, snippet: { maxLines: 6 } });
  console.log(`\n"${query}" (${response.kind} query, ${response.mode}, ${response.timings.totalMs.toFixed(1)} ms):`);
  for (const result of response.results) {
    console.log(
      `  ${result.score.toFixed(3)}  ${result.path}:${result.startLine}-${result.endLine}  ${result.type} ${result.name}`,
    );
    if (result.description) console.log(`         ${result.description.split('\n')[0]}`);
  }

  // Filters narrow both halves: a path prefix or glob (root-relative), languages, element types.
  const methods = await searcher.search('search the index', {
    k: 3,
    type: 'method',
    language: 'typescript',
    snippet: false,
  });
  console.log(
    `\nTypeScript methods for "search the index": ${methods.results.map((r) => r.name).join(', ') || 'none'}`,
  );
} finally {
  searcher.close();
}
