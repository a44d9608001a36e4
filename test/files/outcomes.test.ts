/**
 * Every entry of a tree gets an outcome: listed, excluded on purpose, or
 * skipped with its real reason. A FIFO named like code, symbolic link loops,
 * links to directories and to devices, an unreadable directory, and a name
 * that is not UTF-8 used to be reported nowhere.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Indexer } from '../../src/indexing/indexer.js';
import { scanPaths, scanRoot, type SkippedEntry } from '../../src/files/scan.js';
import { runIsolated, settled } from '../helpers/isolated.js';
import { cleanedUpAfterEach, eventLog, tempRepo } from '../helpers/repo.js';

const owned = cleanedUpAfterEach();

/** A tree with one of each odd entry beside a regular file. */
function oddTree() {
  const repo = (owned.repo = tempRepo({
    'src/ok.ts': 'export const ok = 1;\n',
    'src/dir/inner.ts': 'export const inner = 2;\n',
  }));
  execFileSync('mkfifo', [join(repo.root, 'src/x.ts')]);
  symlinkSync('loop-b.ts', join(repo.root, 'src/loop-a.ts'));
  symlinkSync('loop-a.ts', join(repo.root, 'src/loop-b.ts'));
  symlinkSync(join(repo.root, 'src/dir'), join(repo.root, 'src/to-dir'));
  symlinkSync('/dev/zero', join(repo.root, 'src/zero.ts'));
  writeFileSync(Buffer.from(join(repo.root, 'src/caf\xe9.ts'), 'latin1'), 'export const cafe = 3;\n');
  return repo;
}

const byPath = (skipped: SkippedEntry[]) =>
  Object.fromEntries(skipped.map((s) => [s.path, `${s.reason}: ${s.detail}`]));

describe('every entry gets an outcome', () => {
  it('the scan lists regular files and skips the rest, each with its reason', async () => {
    const repo = oddTree();
    const skipped: SkippedEntry[] = [];
    const files = await scanRoot(repo.root, { onSkipped: (entry) => skipped.push(entry) });
    expect(files.map((f) => f.path)).toEqual(['src/dir/inner.ts', 'src/ok.ts']);
    expect(byPath(skipped)).toEqual({
      'src/x.ts': 'special-file: a FIFO: nothing to index',
      'src/loop-a.ts': 'symlink: a symbolic link loop (ELOOP)',
      'src/loop-b.ts': 'symlink: a symbolic link loop (ELOOP)',
      'src/to-dir': 'symlink: a symbolic link to a directory; links are not followed',
      'src/zero.ts': 'symlink: a symbolic link to a character device; links are not followed',
      'src/caf\ufffd.ts': 'bad-name: the file name is not valid UTF-8',
    });
  });

  it('paths given one by one get the same outcomes, and a missing one is missing', async () => {
    const repo = oddTree();
    const skipped: SkippedEntry[] = [];
    const given = await scanPaths(repo.root, ['src/x.ts', 'src/loop-a.ts', 'src/zero.ts', 'src/ok.ts', 'src/gone.ts'], {
      onSkipped: (entry) => skipped.push(entry),
    });
    expect(given.files.map((f) => f.path)).toEqual(['src/ok.ts']);
    expect(given.missing).toEqual(['src/gone.ts']);
    expect(Object.keys(byPath(skipped)).sort()).toEqual(['src/loop-a.ts', 'src/x.ts', 'src/zero.ts']);
  });

  it('an index run counts and reports them as skipped, with the reason', async () => {
    const repo = oddTree();
    const log = eventLog();
    const summary = await new Indexer({ path: repo.root, embedder: 'builtin', llm: false, onEvent: log.onEvent }).run();
    expect(summary.files.added).toBe(2);
    expect(summary.files.skipped).toBe(6);
    expect(
      log
        .of('file-skipped')
        .map((e) => `${e.path} ${e.reason}`)
        .sort(),
    ).toEqual(
      [
        'src/caf\ufffd.ts bad-name',
        'src/loop-a.ts symlink',
        'src/loop-b.ts symlink',
        'src/to-dir symlink',
        'src/x.ts special-file',
        'src/zero.ts symlink',
      ].sort(),
    );
  });

  it('a file replaced by a FIFO between the scan and the read fails with a reason; the run does not hang', async () => {
    const repo = (owned.repo = tempRepo({
      'src/ok.ts': 'export const ok = 1;\n',
      'src/swapped.ts': 'export const swapped = 2;\n',
    }));
    const swapped = join(repo.root, 'src/swapped.ts');
    const run = await runIsolated(
      `
      import { execFileSync } from 'node:child_process';
      import { rmSync } from 'node:fs';
      const { Indexer } = await import(DIST);
      const failed = [];
      const summary = await new Indexer({
        path: ${JSON.stringify(repo.root)}, embedder: 'builtin', llm: false, threads: 1,
        onEvent: (event) => {
          if (event.type === 'scan-done') { rmSync(${JSON.stringify(swapped)}); execFileSync('mkfifo', [${JSON.stringify(swapped)}]); }
          if (event.type === 'file-failed') failed.push(event);
        },
      }).run();
      console.log(JSON.stringify({ added: summary.files.added, failed }));`,
      { timeout: 20_000 },
    );
    const { added, failed } = settled(run) as { added: number; failed: { path: string; error: string }[] };
    expect(added).toBe(1);
    expect(failed).toEqual([
      { type: 'file-failed', path: 'src/swapped.ts', error: expect.stringContaining('is no longer a regular file') },
    ]);
  });

  it('an unreadable directory is skipped with EACCES, not passed over', async () => {
    const repo = (owned.repo = tempRepo({
      'ok.ts': 'export const ok = 1;\n',
      'locked/secret.ts': 'export const s = 1;\n',
    }));
    mkdirSync(join(repo.root, 'open'));
    for (const dir of [repo.root, join(repo.root, 'open')]) chmodSync(dir, 0o755);
    chmodSync(join(repo.root, 'ok.ts'), 0o644);
    chmodSync(join(repo.root, 'locked'), 0o000);
    // Root reads any directory: the scan then runs as nobody, once the code is loaded (a clone in
    // a private directory, such as one made by mktemp -d, is not nobody's to read).
    const run = await runIsolated(`
      const { scanRoot } = await import(${JSON.stringify(new URL('../../dist/files/scan.js', import.meta.url).pathname)});
      if (process.getuid() === 0) { process.setgid(65534); process.setuid(65534); }
      const skipped = [];
      const files = await scanRoot(${JSON.stringify(repo.root)}, { onSkipped: (entry) => skipped.push(entry) });
      console.log(JSON.stringify({ files: files.map((f) => f.path), skipped }));`);
    chmodSync(join(repo.root, 'locked'), 0o755);
    const { files, skipped } = settled(run) as { files: string[]; skipped: SkippedEntry[] };
    expect(files).toEqual(['ok.ts']);
    expect(skipped).toEqual([
      { path: 'locked', reason: 'unreadable', detail: 'the directory cannot be read: EACCES: permission denied' },
    ]);
  });
});
