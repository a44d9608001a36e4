/**
 * A run of the shared store while another run of the same repository is under way, timed (not
 * part of `npm test`; the test is test/store/postgres-run-lease.test.ts):
 *
 *   npm run bench:postgres-lock -- [--url postgres://…|pglite] [--files 1500]
 *
 * Indexes a generated repository of --files files once, changes every file, and while the
 * second run is under way (a quarter of its files done): a second indexer of the repository
 * (expected: LOCKED at once), searches (expected: answers, from the state before the run), and
 * an indexer with --wait (expected: waits for the first, then finds nothing to do). Prints how
 * long each took and what it answered. Without --url, PostgreSQL is PGlite in this process.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Indexer } from '../src/indexing/indexer.js';
import { Searcher } from '../src/search/searcher.js';
import { startPostgres } from '../test/support/postgres.js';

const { values: args } = parseArgs({
  options: { url: { type: 'string', default: 'pglite' }, files: { type: 'string', default: '1500' } },
});
const count = Number(args.files);
const pglite = args.url === 'pglite' ? await startPostgres() : undefined;
const store = { url: pglite?.url ?? args.url!, schema: `lock_bench_${process.pid}` };
const root = mkdtempSync(join(tmpdir(), 'ocv-lock-'));
mkdirSync(join(root, 'src'));
const layOut = (version: string) => {
  for (let i = 0; i < count; i++)
    writeFileSync(
      join(root, 'src', `part${i}.ts`),
      `/** Part ${i} of the ${version} release. */\nexport function part${i}${version}(): number {\n  return ${i};\n}\n`,
    );
};
const index = (extra: { lockWaitMs?: number; onEvent?: (e: { type: string; done?: number }) => void } = {}) =>
  new Indexer({ path: root, store, repo: 'app', embedder: 'builtin', llm: false, threads: 1, ...extra }).run();
const timed = async <T>(work: () => Promise<T>): Promise<{ ms: number; outcome: string }> => {
  const started = performance.now();
  let outcome: string;
  try {
    outcome = `ok ${JSON.stringify(await work()).slice(0, 120)}`;
  } catch (error) {
    outcome = `${(error as { code?: string }).code ?? 'error'}: ${(error as Error).message.slice(0, 160)}`;
  }
  return { ms: Math.round(performance.now() - started), outcome };
};

try {
  layOut('alpha');
  const first = await timed(() => index());
  console.log(`server: ${pglite ? 'PGlite (in process)' : store.url}; ${count} files`);
  console.log(`first run: ${first.ms} ms`);
  layOut('beta');
  let midRun!: () => void;
  const reached = new Promise<void>((resolve) => (midRun = resolve));
  const runStarted = performance.now();
  const run = timed(() => index({ onEvent: (e) => e.type === 'progress' && (e.done ?? 0) >= count / 4 && midRun() }));
  await reached;
  console.log(`mid-run at ${Math.round(performance.now() - runStarted)} ms`);
  const second = await timed(() => index());
  console.log(`second indexer: ${second.ms} ms, ${second.outcome}`);
  for (let i = 0; i < 3; i++) {
    const search = await timed(async () => {
      const searcher = await Searcher.open({ store });
      try {
        const { results } = await searcher.search(`part${i + 7}alpha`, { mode: 'lexical' });
        return results[0]?.path;
      } finally {
        searcher.close();
      }
    });
    console.log(`search during the run: ${search.ms} ms, ${search.outcome}`);
  }
  const waiting = timed(() => index({ lockWaitMs: 600_000 }).then((s) => ({ changed: s.files.changed })));
  const ran = await run;
  console.log(`the run: ${ran.ms} ms in all`);
  const waited = await waiting;
  console.log(`indexer with --wait: ${waited.ms} ms, ${waited.outcome}`);
} finally {
  rmSync(root, { recursive: true, force: true });
  await pglite?.stop();
}
