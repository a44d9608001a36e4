import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { holdsAtLeast } from '../../src/files/probe.js';

const root = mkdtempSync(join(tmpdir(), 'ocvector-probe-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function files(dir: string, count: number): void {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++) writeFileSync(join(dir, `f${i}.ts`), '');
}

describe('holdsAtLeast', () => {
  it('counts regular files at any depth, leaving out dot-directories and node_modules', () => {
    files(join(root, 'src', 'deep', 'deeper'), 3);
    files(join(root, 'src'), 2);
    files(join(root, 'node_modules', 'pkg'), 50);
    files(join(root, '.git', 'objects'), 50);
    writeFileSync(join(root, '.hidden'), '');
    expect(holdsAtLeast(root, 5)).toBe(true);
    expect(holdsAtLeast(root, 6)).toBe(false);
  });

  it('stops at the directories it may read', () => {
    for (let i = 0; i < 10; i++) files(join(root, 'wide', `d${i}`), 1);
    // Three directories read, the root, src and wide (node_modules passed over), hold src's 2 files.
    expect(holdsAtLeast(root, 3, 3)).toBe(false);
    expect(holdsAtLeast(root, 15)).toBe(true);
  });

  it('finds none in a file, or where nothing can be read', () => {
    expect(holdsAtLeast(join(root, 'src', 'f0.ts'), 1)).toBe(false);
    expect(holdsAtLeast(join(root, 'missing'), 1)).toBe(false);
  });
});
