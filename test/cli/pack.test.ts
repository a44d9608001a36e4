/** What `npm pack` puts in the tarball: what an installed package needs, no build leftovers. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('the package tarball', () => {
  it('holds the licence, the compiled code and every bin, and no source maps or build info', () => {
    const [pack] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' }),
    ) as [{ files: { path: string }[] }];
    const paths = pack.files.map((file) => file.path);
    const { bin } = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { bin: Record<string, string> };
    for (const path of [
      'LICENSE',
      'README.md',
      'dist/index.js',
      'dist/index.d.ts',
      'native/src/addon.cc',
      ...Object.values(bin),
    ])
      expect(paths).toContain(path);
    expect(paths.filter((path) => path.endsWith('.map') || path.endsWith('.tsbuildinfo'))).toEqual([]);
  });
});
