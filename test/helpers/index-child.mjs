// A separate indexing process for crash tests: indexes a root with the
// built-in embedder and reports progress on stdout, one JSON line per event,
// so that the test can kill it (SIGKILL) at a chosen moment.
import { Indexer } from '../../dist/index.js';

// Optionally into a shared store: <root> <postgres-url> <repo> <schema>.
const [root, store, repo, schema] = process.argv.slice(2);
const report = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);
const indexer = new Indexer({
  path: root,
  ...(store ? { store: { url: store, schema }, repo } : {}),
  embedder: 'builtin',
  llm: false,
  threads: 1,
  onEvent: (event) => {
    if (event.type === 'progress' || event.type === 'vector-index') report(event);
  },
});
const summary = await indexer.run();
report({ type: 'finished', summary });
