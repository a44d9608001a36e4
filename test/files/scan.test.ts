import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findRoot } from '../../src/files/root.js';
import { isSecretName } from '../../src/files/rules.js';
import { scanPaths, scanRoot } from '../../src/files/scan.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';

let repo: TempRepo | undefined;
afterEach(() => repo?.cleanup());

describe('scanning', () => {
  it('applies nested ignore files as git does, with negation', async () => {
    repo = tempRepo({
      '.gitignore': '*.tmp\nlogs/\n',
      'a.ts': 'x',
      'a.tmp': 'x',
      'logs/x.ts': 'x',
      'pkg/.gitignore': '*.ts\n!keep.ts\n',
      'pkg/drop.ts': 'x',
      'pkg/keep.ts': 'x',
      'pkg/sub/also-dropped.ts': 'x',
      'app.min.js': 'x',
      'image.png': 'x',
      'yarn.lock': 'x',
    });
    symlinkSync(join(repo.root, 'a.ts'), join(repo.root, 'link.ts'));
    mkdirSync(join(repo.root, 'node_modules/x'), { recursive: true });
    const excluded: string[] = [];
    const files = await scanRoot(repo.root, { onExcluded: (e) => excluded.push(`${e.path}:${e.reason}`) });
    expect(files.map((f) => f.path)).toEqual(['.gitignore', 'a.ts', 'pkg/.gitignore', 'pkg/keep.ts']);
    expect(excluded.sort()).toEqual([
      'a.tmp:ignored',
      'app.min.js:default-exclude',
      'image.png:default-exclude',
      'pkg/drop.ts:ignored',
      'pkg/sub/also-dropped.ts:ignored',
      'yarn.lock:default-exclude',
    ]);
    const given = await scanPaths(repo.root, ['pkg/keep.ts', 'pkg/drop.ts', 'logs/x.ts', 'gone.ts']);
    expect(given.files.map((f) => f.path)).toEqual(['pkg/keep.ts']);
    expect(given.missing).toEqual(['gone.ts']);
    await expect(scanPaths(repo.root, ['/etc/passwd'])).rejects.toThrow(/outside the root/);
  });

  it("passes over a linked worktree's .git file, which only says where its git directory is", async () => {
    repo = tempRepo({ '.git': 'gitdir: /home/someone/project/.git/worktrees/feature\n', 'a.ts': 'x' });
    const excluded: string[] = [];
    const files = await scanRoot(repo.root, { onExcluded: (e) => excluded.push(`${e.path}:${e.reason}`) });
    expect(files.map((f) => f.path)).toEqual(['a.ts']);
    expect(excluded).toEqual(['.git:default-exclude']);
  });

  it('knows secrets by name', () => {
    for (const name of [
      '.env',
      '.env.local',
      'server.pem',
      'private.key',
      'id_rsa',
      'id_ed25519.pub',
      'credentials.json',
      '.npmrc',
      'secrets.yaml',
      '.git-credentials',
      // dotenv files however they are named, direnv's, and the Vault CLI's token.
      '.env-prod',
      '.env_local',
      'prod.env',
      '.ENV-STAGING',
      '.envrc',
      '.vault-token',
    ]) {
      expect(isSecretName(name), name).toBe(true);
    }
    for (const name of [
      'environment.ts',
      'keyboard.ts',
      'monkey.py',
      'credentials-form.tsx',
      'env.ts',
      'vite-env.d.ts',
      'envelope.go',
      'dotenv.md',
      'vault-token.ts',
    ])
      expect(isSecretName(name), name).toBe(false);
  });

  it('finds the root: an existing index or git work tree above, else the directory given', () => {
    repo = tempRepo({ 'a/b/c.ts': 'x' }, { git: true });
    expect(findRoot(join(repo.root, 'a/b/c.ts'))).toBe(repo.root);
    expect(findRoot(join(repo.root, 'a'))).toBe(repo.root);
    expect(() => findRoot(join(repo!.root, 'missing'))).toThrow(/no such file or directory/);
  });
});
