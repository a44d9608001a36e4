/**
 * The victim's side of test/security/untrusted-vectors*.test.ts, run in a
 * child process (vite-node) so that FAISS crashing on a planted file is a
 * dead child, reported by the test, not a dead test runner. Prints one JSON
 * line per search: what it answered and the vector index's events.
 *
 *   search <indexDir>                      a hybrid search, as oc-vector-search and the MCP server make
 *   index <root>                           an indexer run (as a reindex), then a search
 *   fuzz <indexDir> <mutant>...            each mutant file planted in turn (plantVectorFile), then a search
 *   read <file>                            FaissIndex.read with `untrusted`: {ok, ntotal} or {code, message}
 */
import { readFileSync } from 'node:fs';
import { FaissIndex, Indexer, Searcher, type SearchEvent } from '../../src/index.js';
import { plantVectorFile } from '../helpers/untrusted-vectors.js';

const QUERY = 'hash a password with a salt';

async function search(indexDir: string): Promise<void> {
  const events: SearchEvent[] = [];
  const searcher = await Searcher.open({ indexDir, onEvent: (event) => events.push(event) });
  try {
    const response = await searcher.search(QUERY, { k: 3, snippet: false });
    const answer = {
      mode: response.mode,
      fallback: response.fallback?.reason,
      names: response.results.map((result) => result.name),
      events: events.map((event) => (event.type === 'vector-index' ? event.event.type : event.type)),
    };
    process.stdout.write(`${JSON.stringify(answer)}\n`);
  } finally {
    searcher.close();
  }
}

const [mode, target, ...mutants] = process.argv.slice(2);
if (mode === 'search') await search(target!);
else if (mode === 'index') {
  const summary = await new Indexer({ path: target!, embedder: 'builtin', llm: false }).run();
  process.stdout.write(`${JSON.stringify({ written: summary.index.written })}\n`);
  await search(`${target}/.ocvector`);
} else if (mode === 'fuzz')
  for (const mutant of mutants) {
    process.stdout.write(`${JSON.stringify({ mutant })}\n`);
    plantVectorFile(target!, readFileSync(mutant));
    await search(target!);
  }
else if (mode === 'read') {
  const outcome = await FaissIndex.read(target!, { untrusted: true }).then(
    (index) => ({ ok: true, ntotal: index.ntotal }),
    (error: { code?: string; message?: string }) => ({ code: error.code, message: error.message }),
  );
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
} else throw new Error(`unknown mode ${mode}`);
