/**
 * The work tree the localisation harness moves from commit to commit: on a
 * small git repository made here, each move leaves exactly the commit's
 * tree (as `git archive` lays it out), writes only what changed, and a tree
 * with no recorded commit is laid out again. The baselines rank its files.
 */
import { execFileSync } from 'node:child_process';
import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileBaselines } from '../../eval/lib/localise-baseline.js';
import { commitTimes, treeAt, WorkTree } from '../../eval/lib/localise-worktree.js';
import { historyRepo } from '../helpers/history-repo.js';

const root = mkdtempSync(join(tmpdir(), 'ocvector-localise-'));
const history = historyRepo(join(root, 'repo'));
const repo = history.root;
/** A commit of these files and links, its subject its number. */
let commits = 0;
const commit = (files: Record<string, string | null>, links: Record<string, string> = {}) =>
  history.commit(`commit ${++commits}`, files, { links });
/** Every file and link under `dir`: path -> content or `-> target`. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) out[relative(dir, path)] = `-> ${readlinkSync(path)}`;
      else if (stat.isDirectory()) walk(path);
      else out[relative(dir, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return out;
}

function archived(commitId: string): Record<string, string> {
  const dir = mkdtempSync(join(root, 'archive-'));
  execFileSync('sh', ['-c', `git -C "${repo}" archive ${commitId} | tar -x -C "${dir}"`]);
  return snapshot(dir);
}

const c1 = commit({ 'src/a.py': 'def parse_config(): pass\n', 'src/b.py': 'x = 1\n', 'docs/readme.md': 'hello\n' });
const c2 = commit({ 'src/b.py': 'x = 2\n', 'src/deep/c.py': 'def render_widget(): pass\n' }, { 'link.py': 'src/a.py' });
const c3 = commit({ 'src/deep/c.py': null, 'tests/test_a.py': 'def test_parse_config(): parse_config()\n' });
const gitDir = join(repo, '.git');

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('WorkTree', () => {
  const tree = new WorkTree(gitDir, join(root, 'work', 'tree'));

  it('lays out a commit from nothing, then moves forward and back to exactly each tree', () => {
    const first = tree.moveTo(c1);
    expect(first.fresh).toBe(true);
    expect(snapshot(tree.dir)).toEqual(archived(c1));
    const aMtime = statSync(join(tree.dir, 'src/a.py')).mtimeMs;

    const second = tree.moveTo(c2);
    expect(second).toMatchObject({ fresh: false, written: 3, removed: 0, missing: [] });
    expect(snapshot(tree.dir)).toEqual(archived(c2));
    expect(statSync(join(tree.dir, 'src/a.py')).mtimeMs).toBe(aMtime); // unchanged files are not rewritten

    const third = tree.moveTo(c3);
    expect(third).toMatchObject({ written: 1, removed: 1 });
    expect(snapshot(tree.dir)).toEqual(archived(c3));
    expect(readdirSync(join(tree.dir, 'src'))).not.toContain('deep'); // emptied folders go

    tree.moveTo(c1);
    expect(snapshot(tree.dir)).toEqual(archived(c1));
    expect(tree.commit).toBe(c1);
  });

  it('picks up a tree another process left at a recorded commit, and lays out again without one', () => {
    const again = new WorkTree(gitDir, tree.dir);
    expect(again.commit).toBe(c1);
    expect(again.moveTo(c3).fresh).toBe(false);
    expect(snapshot(tree.dir)).toEqual(archived(c3));
    rmSync(`${tree.dir}.commit`);
    writeFileSync(join(tree.dir, 'stray.txt'), 'left over\n');
    expect(new WorkTree(gitDir, tree.dir).moveTo(c2).fresh).toBe(true);
    expect(snapshot(tree.dir)).toEqual(archived(c2));
  });

  it('reads trees and commit times from git', () => {
    expect([...treeAt(gitDir, c2).keys()].sort()).toEqual([
      'docs/readme.md',
      'link.py',
      'src/a.py',
      'src/b.py',
      'src/deep/c.py',
    ]);
    expect(treeAt(gitDir, c2).get('link.py')?.mode).toBe('120000');
    const times = commitTimes(gitDir, [c3, c1]);
    expect(times.get(c1)).toBeLessThan(times.get(c3)!);
  });
});

describe('FileBaselines', () => {
  it('ranks the code files by BM25, and leaves tests out of the second ranking', () => {
    const tree = new WorkTree(gitDir, join(root, 'work2', 'tree'));
    tree.moveTo(c3);
    const baselines = new FileBaselines();
    const ranked = baselines.rank(tree.dir, tree.entries, 'parse_config fails');
    expect(ranked.bm25.slice(0, 2).sort()).toEqual(['src/a.py', 'tests/test_a.py']);
    expect(ranked.bm25).not.toContain('docs/readme.md');
    expect(ranked.bm25).not.toContain('link.py'); // a link is not a file of its own
    expect(ranked['bm25-source']).toEqual(['src/a.py']);
  });
});
