/**
 * oc-vector-search --path (issue 57, point 2), the built command end to
 * end: a path as printed works as a filter (relative to the current
 * directory, or absolute), a malformed glob or a path outside the
 * repository is refused with a sentence (exit 2), and a filter that leaves
 * nothing says on stderr what it was matched against (exit 0, as any
 * search without results).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TempRepo } from '../helpers/repo.js';
import { runCli } from '../helpers/run-node.js';
import { searchRepo } from '../helpers/search-repo.js';

const search = (args: string[], cwd: string) => runCli('oc-vector-search', args, { cwd });

/** The paths of a --json answer's results, relative to the repository root. */
function pathsOf(stdout: string): string[] {
  return (JSON.parse(stdout) as { results: { path: string }[] }).results.map((result) => result.path);
}

describe('oc-vector-search --path', () => {
  let repo: TempRepo;
  let src: string;

  beforeAll(async () => {
    repo = searchRepo();
    src = join(repo.root, 'src');
    expect((await runCli('oc-vector-index', ['--no-llm', '.'], { cwd: repo.root })).code).toBe(0);
  });
  afterAll(() => repo.cleanup());

  it('reads a path from the current directory, as the results are printed', async () => {
    const fromSrc = await search(['token', '--json', '--path', 'auth'], src);
    expect(fromSrc.code).toBe(0);
    expect(pathsOf(fromSrc.stdout).length).toBeGreaterThan(0);
    expect(pathsOf(fromSrc.stdout).every((path) => path.startsWith('src/auth/'))).toBe(true);

    // The first location printed, given back as it was printed, keeps the search to that file.
    const printed = await search(['token', '--no-snippet', '-k', '1'], src);
    const file = printed.stdout.split('\n')[0]!.split(':')[0]!;
    expect(file).toMatch(/^[a-z]+\/[a-z-]+\.ts$/);
    const kept = await search(['token', '--json', '--path', file], src);
    expect(new Set(pathsOf(kept.stdout))).toEqual(new Set([`src/${file}`]));

    // A glob the same way, and Windows separators as typed there.
    const glob = await search(['token', '--json', '--path', 'net/*.ts'], src);
    expect(pathsOf(glob.stdout).every((path) => /^src\/net\/[^/]+\.ts$/.test(path))).toBe(true);
    const windows = await search(['token', '--json', '--path', 'auth\\session.ts'], src);
    expect(new Set(pathsOf(windows.stdout))).toEqual(new Set(['src/auth/session.ts']));
  });

  it('takes an absolute path from anywhere in the repository', async () => {
    const run = await search(['token', '--json', '--path', join(repo.root, 'src', 'net')], join(src, 'auth'));
    expect(run.code).toBe(0);
    expect(pathsOf(run.stdout).length).toBeGreaterThan(0);
    expect(pathsOf(run.stdout).every((path) => path.startsWith('src/net/'))).toBe(true);
  });

  it('says what a path that leaves nothing was matched against, and the path meant', async () => {
    const run = await search(['token', '--path', 'src/auth'], src);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^no results in /);
    expect(run.stderr).toContain(
      `no results: --path src/auth was matched as src/src/auth in ${repo.root}, which does not exist (a --path is relative to the current directory, as results are printed); did you mean --path auth?`,
    );
    // The same on stderr with --json, whose stdout stays the response.
    const json = await search(['token', '--json', '--path', 'src/auth'], src);
    expect(JSON.parse(json.stdout).results).toEqual([]);
    expect(json.stderr).toContain('did you mean --path auth?');
  });

  it.each([
    [
      '[',
      'oc-vector-search: --path [: the glob [ has a [ that is never closed: end the class with ], or write [[] for a literal [',
    ],
    ['src/[].ts', "oc-vector-search: --path src/[].ts: the glob's class [] is empty"],
    ['../../elsewhere', 'oc-vector-search: --path ../../elsewhere names '],
  ])('refuses %j with a sentence and exit 2', async (path, message) => {
    const run = await search(['token', '--path', path], src);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.startsWith(message)).toBe(true);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});
