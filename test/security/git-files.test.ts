/**
 * The git files a tree carries are data (issue 54): a `.git` file is believed only as git
 * believes it, and no `.git`, `commondir` or ignore file can hang a run or fill its memory.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { IndexEvent } from '../../src/indexing/events.js';
import { indexStatus } from '../../src/indexing/status.js';
import { gitChangesSince } from '../../src/files/git.js';
import { scanRoot } from '../../src/files/scan.js';
import { mainWorktreeOf } from '../../src/files/worktree.js';
import { indexBuiltin } from '../helpers/index-builtin.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';
import { searchFixtureFiles } from '../helpers/search-repo.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const repos: TempRepo[] = [];
const directories: string[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function repo(files: Record<string, string>, options: { git?: boolean } = {}): TempRepo {
  const made = tempRepo(files, options);
  repos.push(made);
  return made;
}

/** Another project on the same machine, indexed: what a crafted `.git` file would have copied in. */
async function indexedProject(): Promise<TempRepo> {
  const project = repo(searchFixtureFiles(), { git: true });
  await indexBuiltin(project.root);
  return project;
}

function copies(events: IndexEvent[]) {
  return events.filter((event) => event.type === 'index-copied' || event.type === 'index-not-copied');
}

describe("a .git file naming another project's repository", () => {
  it('whose git directory is no worktree of that repository: not believed, its index not copied', async () => {
    const project = await indexedProject();
    const tree = repo({ 'a.ts': 'export const a = 1;\n' });
    // The git directory the tree names says its repository is the other project's.
    tree.write('gitdir/commondir', `${join(project.root, '.git')}\n`);
    tree.write('gitdir/gitdir', `${join(tree.root, '.git')}\n`);
    tree.write('.git', `gitdir: ${join(tree.root, 'gitdir')}\n`);

    expect(mainWorktreeOf(tree.root)).toBeUndefined();
    const { summary, log } = await indexBuiltin(tree.root);
    expect(copies(log.events)).toEqual([
      {
        type: 'index-not-copied',
        from: join(project.root, '.ocvector'),
        why: expect.stringContaining(`which is not one of ${join(project.root, '.git')}'s worktrees`),
      },
    ]);
    expect(summary.files).toMatchObject({ added: 3, unchanged: 0, deleted: 0 });
    expect((await indexStatus(join(tree.root, '.ocvector'))).repositories.map((r) => r.root)).toEqual([tree.root]);
  });

  it("whose git directory is that repository's worktree, which names another worktree back: not believed", async () => {
    const project = await indexedProject();
    const parent = mkdtempSync(join(tmpdir(), 'ocvector-worktrees-'));
    directories.push(parent);
    project.git('worktree', 'add', '-q', '-b', 'feature', join(parent, 'feature'));
    const tree = repo({ 'a.ts': 'export const a = 1;\n' });
    tree.write('.git', `gitdir: ${join(project.root, '.git/worktrees/feature')}\n`);

    expect(mainWorktreeOf(tree.root)).toBeUndefined();
    const { summary, log } = await indexBuiltin(tree.root);
    expect(copies(log.events)).toEqual([
      {
        type: 'index-not-copied',
        from: join(project.root, '.ocvector'),
        why: expect.stringContaining(`whose gitdir file does not name ${join(tree.root, '.git')} back`),
      },
    ]);
    expect(summary.files.added).toBe(1);
    // The real worktree, which its repository names back, still starts from the main index.
    const real = await indexBuiltin(join(parent, 'feature'));
    expect(copies(real.log.events)).toEqual([{ type: 'index-copied', from: join(project.root, '.ocvector') }]);
  });

  it('a main worktree whose index directory is a link: nothing copied', async () => {
    const project = await indexedProject();
    const parent = mkdtempSync(join(tmpdir(), 'ocvector-worktrees-'));
    directories.push(parent);
    const main = repo({ 'a.ts': 'export const a = 1;\n' }, { git: true });
    symlinkSync(join(project.root, '.ocvector'), join(main.root, '.ocvector'));
    main.git('worktree', 'add', '-q', '-b', 'feature', join(parent, 'feature'));

    expect(mainWorktreeOf(join(parent, 'feature'))).toBe(main.root);
    const { summary, log } = await indexBuiltin(join(parent, 'feature'));
    expect(copies(log.events)).toEqual([]);
    expect(summary.files.added).toBe(1);
  });
});

/**
 * The CLI on a tree, in a child process killed (SIGKILL: a thread blocked on a FIFO never runs
 * the SIGTERM handler) when it runs past the timeout, so that a hang fails this test, not the suite.
 */
function indexInChild(path: string): Promise<{ code: number | string | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        join(ROOT, 'node_modules/vite-node/vite-node.mjs'),
        join(ROOT, 'src/cli/oc-vector-index.ts'),
        '--',
        '--no-llm',
        path,
      ],
      {
        cwd: ROOT,
        timeout: 45_000,
        killSignal: 'SIGKILL',
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          OLLAMA_HOST: 'http://127.0.0.1:9',
          OCVECTOR_EMBEDDER: 'builtin',
        },
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? error.signal ?? null) : 0, stdout, stderr }),
    );
  });
}

describe('git files that are not small regular files', () => {
  const cases: [string, (tree: TempRepo) => void][] = [
    ['.git is a FIFO', (tree) => execFileSync('mkfifo', [join(tree.root, '.git')])],
    ['.git is a link to /dev/zero', (tree) => symlinkSync('/dev/zero', join(tree.root, '.git'))],
    [
      'commondir is a FIFO',
      (tree) => {
        tree.write('.git', `gitdir: ${join(tree.root, 'gitdir')}\n`);
        mkdirSync(join(tree.root, 'gitdir'));
        execFileSync('mkfifo', [join(tree.root, 'gitdir/commondir')]);
      },
    ],
    [
      'commondir is a link to /dev/zero',
      (tree) => {
        tree.write('.git', `gitdir: ${join(tree.root, 'gitdir')}\n`);
        mkdirSync(join(tree.root, 'gitdir'));
        symlinkSync('/dev/zero', join(tree.root, 'gitdir/commondir'));
      },
    ],
    ['.gitignore is a FIFO', (tree) => execFileSync('mkfifo', [join(tree.root, '.gitignore')])],
    ['.ocvectorignore is a link to /dev/zero', (tree) => symlinkSync('/dev/zero', join(tree.root, '.ocvectorignore'))],
  ];

  it.each(cases)('%s: the first index run finishes', async (_, make) => {
    const tree = repo({ 'src/a.ts': 'export function alpha(): number {\n  return 1;\n}\n' });
    make(tree);
    const run = await indexInChild(tree.root);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/files +1 scanned: 1 added/);
  });
});

describe('ignore files', () => {
  it('a .gitignore that is a link is not followed, as git does not follow it', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'ocvector-outside-'));
    directories.push(outside);
    writeFileSync(join(outside, 'rules'), 'hidden.ts\n');
    const tree = repo({ 'hidden.ts': 'export const h = 1;\n', 'shown.ts': 'export const s = 1;\n' });
    symlinkSync(join(outside, 'rules'), join(tree.root, '.gitignore'));
    expect((await scanRoot(tree.root)).map((file) => file.path)).toEqual(['hidden.ts', 'shown.ts']);
  });
});

describe('--since', () => {
  it("does not run the program a repository's own config names as core.fsmonitor", async () => {
    const tree = repo({ 'a.ts': 'export const a = 1;\n' }, { git: true });
    const ran = join(tree.root, 'fsmonitor-ran');
    const hook = join(mkdtempSync(join(tmpdir(), 'ocvector-hook-')), 'hook');
    directories.push(join(hook, '..'));
    writeFileSync(hook, `#!/bin/sh\ntouch '${ran}'\n`);
    chmodSync(hook, 0o755);
    tree.git('config', 'core.fsmonitor', hook);
    tree.write('a.ts', 'export const a = 2;\n');

    expect(await gitChangesSince(tree.root, 'HEAD')).toEqual({ changed: ['a.ts'], deleted: [] });
    expect(existsSync(ran)).toBe(false);
  });
});
