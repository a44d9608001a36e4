/** oc-vector-index with odd paths: a FIFO or a symbolic link given on the command line, and odd entries in a tree, each reported with its real reason. */
import { execFileSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanedUpAfterEach, tempRepo } from '../helpers/repo.js';
import { type Run, runCli } from '../helpers/run-node.js';

const owned = cleanedUpAfterEach();
const index = (args: string[], cwd: string): Promise<Run> =>
  runCli('oc-vector-index', ['--no-llm', ...args], { cwd, timeout: 30_000 });

describe('paths that are not files or directories', () => {
  it('a FIFO, a link loop, a link to a directory given on the command line: a usage error naming what it is', async () => {
    const repo = (owned.repo = tempRepo({ 'src/ok.ts': 'export const ok = 1;\n' }));
    execFileSync('mkfifo', [join(repo.root, 'src/x.ts')]);
    symlinkSync('loop-b', join(repo.root, 'loop-a'));
    symlinkSync('loop-a', join(repo.root, 'loop-b'));
    symlinkSync(join(repo.root, 'src'), join(repo.root, 'src-link'));
    const cases: [string, RegExp][] = [
      ['src/x.ts', /src\/x\.ts is a FIFO: nothing to index; give a directory or a regular file/],
      ['loop-a', /loop-a is a symbolic link loop \(ELOOP\)/],
      ['loop-a/deeper', /loop-a\/deeper: ELOOP: too many symbolic links/],
      ['src-link', /src-link is a symbolic link to a directory; links are not followed/],
      ['nothing-here', /nothing-here: no such file or directory/],
    ];
    for (const [path, message] of cases) {
      const run = await index([path], repo.root);
      expect(run.code, path).toBe(2);
      expect(run.stderr, path).toMatch(message);
    }
  });

  it('odd entries in a tree appear in the summary and in --json as skipped, with their reasons', async () => {
    const repo = (owned.repo = tempRepo({ 'src/ok.ts': 'export const ok = 1;\n' }));
    execFileSync('mkfifo', [join(repo.root, 'src/x.ts')]);
    symlinkSync('/dev/zero', join(repo.root, 'src/zero.ts'));
    const run = await index(['--json', '.'], repo.root);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      skipped: { path: string; reason: string; detail: string }[];
      summary: { files: { skipped: number } };
    };
    expect(report.summary.files.skipped).toBe(2);
    // By path, whichever of their checks finished first.
    expect(report.skipped).toEqual([
      { path: 'src/x.ts', reason: 'special-file', detail: 'a FIFO: nothing to index' },
      {
        path: 'src/zero.ts',
        reason: 'symlink',
        detail: 'a symbolic link to a character device; links are not followed',
      },
    ]);
    const text = await index(['.'], repo.root);
    expect(text.stdout).toMatch(/skipped +2 \(1 special-file, 1 symlink\)/);
  });
});
