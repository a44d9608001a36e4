// An index updated commit by commit (this repository's last N commits, src/ and docs/) against a fresh build of the last tree: same top 10, same scores, for 45 queries; then an incremental run after a one-file change.
// node node_modules/vite-node/vite-node.mjs bench/fresh-parity.ts  (N=20, PATHS="src docs", BASE=/tmp/...)
import { execFileSync, execSync } from 'node:child_process';
import { mkdirSync, rmSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Indexer } from '../src/indexing/indexer.js';
import { Searcher } from '../src/index.js';
import { layOutSnapshot } from '../eval/lib/commit-history.js';

const REPO = process.env.REPO ?? process.cwd();
const N = Number(process.env.N ?? 20);
const PATHS = (process.env.PATHS ?? 'src docs').split(' ');
const base = process.env.BASE ?? '/tmp/ocvector-fresh-parity';
const commits = execSync(`git -C ${REPO} rev-list --first-parent -n ${N + 1} HEAD`, { encoding: 'utf8' })
  .trim()
  .split('\n')
  .reverse();
const gitDir = execFileSync('git', ['-C', REPO, 'rev-parse', '--absolute-git-dir'], { encoding: 'utf8' }).trim();

function checkout(dir: string, commit: string) {
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(dir))
    if (name !== '.ocvector') rmSync(join(dir, name), { recursive: true, force: true });
  layOutSnapshot(gitDir, commit, dir, PATHS);
  // Files as if checked out a while ago: the racy-mtime rule reads none twice.
  execSync(`find ${dir} -path ${dir}/.ocvector -prune -o -type f -exec touch -d '-2 minutes' {} +`);
}
async function index(dir: string) {
  const t = performance.now();
  await new Indexer({ path: dir, embedder: 'builtin', llm: false }).run();
  return performance.now() - t;
}
const QUERIES = [
  'SearchReader',
  'fileTermCounts',
  'IndexStore',
  'openStore',
  'LexicalRows',
  'VectorIndex',
  'copyIndex',
  'refuseSpecialFile',
  'isInside',
  'Indexer',
  'writeFile',
  'ftsExpression',
  'relocated',
  'PostgresStore',
  'elementHits',
  'redact',
  'secret rules',
  'embedder choice',
  'open the index database',
  'how are files scanned and ignored',
  'rank results by BM25 and vectors',
  'delete a repository from the index',
  'where is the generation stored',
  'read the FAISS vectors file safely',
  'lock the index while writing',
  'migrate schema version',
  'parse a git worktree',
  'search filters by language and path',
  'explain the score of a result',
  'MCP server tool definitions',
  'PostgreSQL connection pool',
  'snippet of a result',
  'stale vectors replay',
  'seed a worktree from another index',
  'exit code of the CLI',
  'environment variables',
  'hashing embedder without model',
  'occurrences of a word',
  'relocate index after move',
  'dry run',
  'status of the index',
  'compact the vectors',
  'query timeout',
  'tokenize identifiers camelCase',
  'file too large skipped',
];
async function answers(dir: string) {
  const s = await Searcher.open({ indexDir: join(dir, '.ocvector') });
  const out: { path: string; name: string; score: number }[][] = [];
  for (const q of QUERIES) {
    const r = await s.search(q, { k: 10, snippet: false });
    out.push(r.results.map((x) => ({ path: x.path, name: x.name, score: x.score })));
  }
  await s.close();
  return out;
}
async function main() {
  const upd = join(base, 'updated'),
    fresh = join(base, 'fresh');
  rmSync(base, { recursive: true, force: true });
  checkout(upd, commits[0]!);
  console.log('first build ms', Math.round(await index(upd)));
  for (const c of commits.slice(1)) {
    checkout(upd, c);
    const ms = await index(upd);
    console.log('update', c.slice(0, 7), Math.round(ms));
  }
  checkout(fresh, commits.at(-1)!);
  console.log('fresh build ms', Math.round(await index(fresh)));
  const a = await answers(upd),
    b = await answers(fresh);
  let sameTop = 0,
    sameScores = 0,
    sameSet = 0;
  QUERIES.forEach((q, i) => {
    const ka = a[i]!.map((r) => `${r.path}#${r.name}`),
      kb = b[i]!.map((r) => `${r.path}#${r.name}`);
    const top = ka.join('|') === kb.join('|');
    const set = [...ka].sort().join('|') === [...kb].sort().join('|');
    const scores = top && a[i]!.every((r, j) => Math.abs(r.score - b[i]![j]!.score) < 1e-9);
    if (top && !scores)
      console.log('SCORES', q, a[i]!.map((r, j) => (r.score - b[i]![j]!.score).toExponential(2)).join(' '));
    sameTop += +top;
    sameSet += +set;
    sameScores += +scores;
    if (!top) console.log('DIFF', q, '\n  upd  ', ka.slice(0, 5).join(', '), '\n  fresh', kb.slice(0, 5).join(', '));
  });
  console.log(`same top10 order ${sameTop}/${QUERIES.length}, same set ${sameSet}, same scores ${sameScores}`);
  // One-file change: time an incremental run.
  const times = [];
  for (let i = 0; i < 3; i++) {
    execSync(`echo '// touched ${i}' >> ${upd}/src/store/reads.ts && touch -d '-2 minutes' ${upd}/src/store/reads.ts`);
    times.push(Math.round(await index(upd)));
  }
  console.log('one-file incremental ms', times.join(' '));
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
