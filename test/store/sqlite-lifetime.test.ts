/**
 * No better-sqlite3 object is ever let go (src/store/embedded/sqlite.ts says why: on
 * Node.js 24 a collected statement can abort the process). The source is
 * checked for calls that make one outside that module, and real searches
 * run under a tiny young generation, which collects often: before the fix
 * every such search on Node 24 aborted (exit 134).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite, pragmaValue, prepared } from '../../src/store/embedded/sqlite.js';
import type { TempRepo } from '../helpers/repo.js';
import { runCli } from '../helpers/run-node.js';
import { searchRepo } from '../helpers/search-repo.js';

const ROOT = new URL('../../', import.meta.url).pathname;
/** Calls that make a better-sqlite3 object (a database, a statement, an iterator) that its caller may drop. */
const MAKES_A_WRAPPER = /\.prepare\s*[<(]|\.pragma\s*\(|\.iterate\s*\(|new\s+Database\s*\(/;

/** The project's own sources under a directory: not the corpora and outputs kept in git-ignored caches there. */
function sourcesUnder(directory: string): string[] {
  return readdirSync(join(ROOT, directory), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|mts|mjs)$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .filter((path) => !path.split('/').some((part) => part === '.cache' || part === 'node_modules' || part === 'out'));
}

describe('better-sqlite3 objects live until exit', () => {
  it('are made only in src/store/embedded/sqlite.ts', () => {
    const offenders = ['src', 'test', 'bench', 'eval']
      .flatMap(sourcesUnder)
      .filter((path) => path !== 'src/store/embedded/sqlite.ts' && path !== 'test/store/sqlite-lifetime.test.ts')
      .flatMap((path) =>
        readFileSync(join(ROOT, path), 'utf8')
          .split('\n')
          .map((line, index) => ({ path, line: index + 1, text: line }))
          .filter(({ text }) => MAKES_A_WRAPPER.test(text)),
      )
      .map(({ path, line, text }) => `${path}:${line}: ${text.trim()}`);
    expect(offenders).toEqual([]);
  });

  it('prepares a statement once per database and SQL text', () => {
    const first = openSqlite(':memory:');
    const second = openSqlite(':memory:');
    const sql = 'SELECT 1 AS one';
    expect(prepared(first, sql)).toBe(prepared(first, sql));
    expect(prepared(second, sql)).not.toBe(prepared(first, sql));
    expect(pragmaValue(first, 'user_version')).toBe(0);
    first.close();
    second.close();
  });

  describe('searches under constant garbage collection', () => {
    let repo: TempRepo;

    beforeAll(async () => {
      repo = searchRepo();
      const indexed = await runCli('oc-vector-index', ['--no-llm', '.'], { cwd: repo.root });
      expect(indexed.code, indexed.stderr).toBe(0);
    }, 60_000);

    afterAll(() => repo?.cleanup());

    it.each([
      ['hybrid', ['write the index file atomically']],
      ['lexical', ['--mode', 'lexical', 'user repository']],
      ['filtered', ['--lang', 'typescript', '--type', 'function,method', 'greatest common divisor']],
      ['a path', ['--path', 'src/', 'server']],
    ])('%s search exits normally', async (_name, args) => {
      const run = await runCli('oc-vector-search', ['--json', ...args], {
        cwd: repo.root,
        env: { NODE_OPTIONS: '--max-semi-space-size=1' },
      });
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).results.length).toBeGreaterThan(0);
    });
  });
});
