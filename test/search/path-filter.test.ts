/**
 * What a `--path` means (issue 57, point 2): one rule, a path as printed
 * works as a filter: relative to the current directory, or absolute, a glob
 * too; a malformed glob and a path outside every repository are refused
 * with a sentence; an empty answer says what the path was matched as.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SearchError } from '../../src/search/errors.js';
import { compileFilters } from '../../src/search/filters.js';
import { compileGlob } from '../../src/search/glob.js';
import {
  describeEmptyPathFilter,
  type RepositoryDirectory,
  resolvePathFilter,
  searchedRepositories,
} from '../../src/search/path-filter.js';
import { tempRepo } from '../helpers/repo.js';
import { CodebaseSearchTool } from '../../src/tool/codebase-search-tool.js';
import type { SearchService } from '../../src/search/search-service.js';

/** A workspace: repository `app` with src/v4/core, repository `lib` beside it, and a directory that is neither. */
const workspace = tempRepo({
  'app/src/v4/core/engine.ts': 'export const engine = 1;\n',
  'app/src/v4/util.py': 'x = 1\n',
  'lib/src/index.ts': 'export const lib = 1;\n',
  'notes/todo.md': '# todo\n',
});
const app = join(workspace.root, 'app');
const lib = join(workspace.root, 'lib');
const REPOS: RepositoryDirectory[] = [
  { name: 'app', dir: app },
  { name: 'lib', dir: lib },
];
afterAll(() => workspace.cleanup());

const resolved = (input: string, cwd: string, repos = REPOS) => {
  const { path, repos: named } = resolvePathFilter(input, cwd, repos);
  return { path, repos: named.map((repository) => repository.name) };
};

describe('resolvePathFilter: a path as printed is a filter', () => {
  it.each([
    // [--path, cwd below the workspace, root-relative filter, repositories]
    ['core', 'app/src/v4', 'src/v4/core', ['app']],
    ['core/engine.ts', 'app/src/v4', 'src/v4/core/engine.ts', ['app']],
    ['./core/', 'app/src/v4', 'src/v4/core', ['app']],
    ['..', 'app/src/v4', 'src', ['app']],
    ['src/v4', 'app', 'src/v4', ['app']],
    ['.', 'app', undefined, ['app']],
    ['core\\engine.ts', 'app/src/v4', 'src/v4/core/engine.ts', ['app']],
    ['*.py', 'app/src', 'src/**/*.py', ['app']],
    ['*.py', 'app', '*.py', ['app']],
    ['core/*.ts', 'app/src/v4', 'src/v4/core/*.ts', ['app']],
    ['../v4/**/*.ts', 'app/src/v4', 'src/v4/**/*.ts', ['app']],
    ['lib/src', '', 'src', ['lib']],
    ['app', '', undefined, ['app']],
    ['.', '', undefined, ['app', 'lib']],
    ['**/*.ts', '', '**/*.ts', ['app', 'lib']],
    ['*.md', '', '*.md', ['app', 'lib']],
  ])('%s from <workspace>/%s is %s in %j', (input, below, path, repos) => {
    expect(resolved(input, join(workspace.root, below))).toEqual({ path, repos });
  });

  it('takes an absolute path as it is, from anywhere, in the repository that holds it', () => {
    expect(resolved(join(app, 'src/v4/core'), lib)).toEqual({ path: 'src/v4/core', repos: ['app'] });
    expect(resolved(`${lib}/**/*.ts`, '/')).toEqual({ path: '**/*.ts', repos: ['lib'] });
    // Windows separators, as copied from a Windows terminal.
    expect(resolved(`${app}\\src\\v4\\`, '/')).toEqual({ path: 'src/v4', repos: ['app'] });
  });

  it('refuses a path outside every repository searched, naming where it led and what does exist', () => {
    const outside = () => resolvePathFilter('todo.md', join(workspace.root, 'notes'), REPOS);
    expect(outside).toThrow(SearchError);
    expect(outside).toThrow(
      `--path todo.md names ${join(workspace.root, 'notes', 'todo.md')}, outside the repositories searched (${app}, ${lib})`,
    );
    // The root-relative habit, from a subdirectory: refused, with the path that was meant.
    expect(() => resolvePathFilter('src/index.ts', workspace.root, [REPOS[1]!])).toThrow(
      /outside the repositories searched .*; did you mean --path lib\/src\/index\.ts\?$/,
    );
    // A repository left out (--repo) is outside the search.
    expect(() => resolvePathFilter(join(app, 'src'), '/', [REPOS[1]!])).toThrow(/outside the repositories searched/);
  });

  it.each([
    [
      '[',
      /--path \[: the glob \[ has a \[ that is never closed: end the class with \], or write \[\[\] for a literal \[/,
    ],
    ['src/[x.ts', /never closed/],
    ['src/[].ts', /the glob's class \[\] is empty/],
    ['src/[!].ts', /the glob's class \[!\] is empty/],
    ['src/*/../x.ts', /\.\. may come only before the first wildcard/],
    ['*/src/*.ts', /a glob that names directories above the repositories/],
    ['', /--path is empty/],
    ['src\u0000', /NUL character/],
  ])('refuses %j with a sentence', (input, message) => {
    const attempt = () => resolvePathFilter(input, workspace.root, REPOS);
    expect(attempt).toThrow(SearchError);
    expect(attempt).toThrow(message);
  });
});

describe('describeEmptyPathFilter: what an empty answer was matched against', () => {
  it('names the root-relative path and the repository, and says when it does not exist, with the path meant', () => {
    const cwd = join(app, 'src/v4');
    const wrongBase = resolvePathFilter('src/v4/core', cwd, REPOS);
    expect(describeEmptyPathFilter(wrongBase)).toBe(
      `no results: --path src/v4/core was matched as src/v4/src/v4/core in ${app}, which does not exist (a --path is relative to the current directory, as results are printed); did you mean --path core?`,
    );
    const glob = resolvePathFilter('nowhere/*.ts', cwd, REPOS);
    expect(describeEmptyPathFilter(glob)).toMatch(
      /was matched as src\/v4\/nowhere\/\*\.ts in .*, where src\/v4\/nowhere does not exist/,
    );
    const there = resolvePathFilter('core', cwd, REPOS);
    expect(describeEmptyPathFilter(there)).toBe(
      `no results: --path core was matched as src/v4/core in ${app}; try other words, or a wider --path`,
    );
  });
});

describe('the searcher side of a path', () => {
  it('a glob also matches the path it spells, brackets and all', () => {
    const filters = compileFilters({ path: 'app/[slug]/page.tsx' });
    const row = (path: string) => ({ path, language: 'typescript', type: 'function' });
    expect(filters.matches(row('app/[slug]/page.tsx'))).toBe(true);
    expect(filters.matches(row('app/s/page.tsx'))).toBe(true);
    expect(filters.matches(row('app/x/page.tsx'))).toBe(false);
    expect(compileFilters({ path: 'app/[slug]' }).matches(row('app/[slug]/page.tsx'))).toBe(true);
  });

  it('a malformed glob fails the search with a sentence, as --path does', () => {
    expect(() => compileGlob('[')).toThrow(/the glob \[ has a \[ that is never closed/);
    expect(() => compileFilters({ path: 'src/[ab' })).toThrow(SearchError);
  });

  it('searchedRepositories pairs each repository searched with its directory', async () => {
    const searcher = {
      searchRoots: async (repos?: readonly string[]) =>
        REPOS.filter((r) => !repos || repos.includes(r.name)).map((r) => r.dir),
      currentRepositories: async () =>
        REPOS.map((r, i) => ({ id: i + 1, name: r.name, root: `/recorded/${r.name}`, commit: null, indexedAt: null })),
    };
    expect(await searchedRepositories(searcher)).toEqual(REPOS);
    expect(await searchedRepositories(searcher, ['lib'])).toEqual([REPOS[1]]);
  });
});

describe('the agent tool: path_prefix by the same rule, from the repository root', () => {
  /** A search service over REPOS that records what each search asked and finds nothing. */
  function fakeService() {
    const asked: { path?: string | undefined; repos?: readonly string[] | undefined }[] = [];
    const service = {
      searchRoots: async (repos?: readonly string[]) =>
        REPOS.filter((r) => !repos || repos.includes(r.name)).map((r) => r.dir),
      currentRepositories: async () =>
        REPOS.map((r, i) => ({ id: i + 1, name: r.name, root: r.dir, commit: null, indexedAt: null })),
      search: async (_query: string, options: { path?: string; repos?: readonly string[] }) => {
        asked.push({ path: options.path, repos: options.repos });
        return { results: [] };
      },
    };
    return { asked, tool: new CodebaseSearchTool({ searcher: service as unknown as SearchService }) };
  }

  it('an absolute path_prefix searches only the repository that holds it', async () => {
    const { asked, tool } = fakeService();
    await tool.execute({ query: 'engine', path_prefix: join(app, 'src/v4') });
    await tool.execute({ query: 'engine', path_prefix: 'src' });
    expect(asked).toEqual([
      { path: 'src/v4', repos: ['app'] },
      { path: 'src', repos: undefined },
    ]);
  });

  it('refuses a malformed glob before searching, and says what an empty path_prefix was matched as', async () => {
    const { asked, tool } = fakeService();
    const bad = await tool.execute({ query: 'engine', path_prefix: 'src/[' });
    expect(bad.error).toMatch(/^invalid arguments: the glob src\/\[ has a \[ that is never closed/);
    expect(asked).toEqual([]);
    const missing = await tool.execute({ query: 'engine', path_prefix: 'v4/core' });
    expect(missing.note).toBe(
      'nothing matched with path_prefix set: try without it, or other words; no repository searched has v4/core (path_prefix is relative to the repository root, as results show paths)',
    );
    expect(missing.note).not.toContain(workspace.root);
    const held = await tool.execute({ query: 'engine', path_prefix: 'src/v4/core' });
    expect(held.note).toMatch(/; path_prefix was matched as src\/v4\/core, relative to the repository root/);
  });
});
