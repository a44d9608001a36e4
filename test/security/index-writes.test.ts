/**
 * Issue 54, case 3: an index that arrives with a clone may hold links, and a run never
 * writes, creates or chmods through one. `.ocvector` itself a link, or a file of its own a
 * link (to a user's ~/.bashrc, or dangling to create a file outside), is refused with
 * StoreError UNTRUSTED before anything is written; a link above the index directory is the
 * user's own layout, and followed.
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Searcher } from '../../src/internal.js';
import { dropIndex } from '../../src/store/embedded/drop.js';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import { indexBuiltin } from '../helpers/index-builtin.js';
import { SAMPLE_FILES, type TempRepo, tempRepo } from '../helpers/repo.js';

const BASHRC = '# the victim’s shell start-up\nexport PATH=$HOME/bin:$PATH\n';
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A repository to index, and beside it a home the attacker aims at. */
function victim(): { repo: TempRepo; home: string; bashrc: string; indexDir: string } {
  const repo = tempRepo(SAMPLE_FILES);
  const home = mkdtempSync(join(tmpdir(), 'ocvector-home-'));
  cleanups.push(() => {
    repo.cleanup();
    rmSync(home, { recursive: true, force: true });
  });
  const bashrc = join(home, '.bashrc');
  writeFileSync(bashrc, BASHRC);
  return { repo, home, bashrc, indexDir: join(repo.root, '.ocvector') };
}

const UNTRUSTED = { name: 'StoreError', code: 'UNTRUSTED' };

/** What a run threw (undefined when it did not): asserted after what it must not have done. */
function failureOf(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('an index never written through a link', () => {
  it.each(['index.db.checked', 'index.db-wal', 'index.db-shm', '.gitignore', 'index.lock'])(
    'a run over an index whose %s links to ~/.bashrc is refused, and the file is left as it was',
    async (name) => {
      const { bashrc, indexDir, repo } = victim();
      await indexBuiltin(repo.root);
      rmSync(join(indexDir, name), { force: true });
      symlinkSync(bashrc, join(indexDir, name));

      const run = await failureOf(indexBuiltin(repo.root));
      expect(readFileSync(bashrc, 'utf8')).toBe(BASHRC);
      expect(run).toMatchObject({
        ...UNTRUSTED,
        message: expect.stringMatching(/is a symbolic link.*delete .*\.ocvector and index again/),
      });
    },
  );

  it('a dangling .gitignore link creates no file outside the index', async () => {
    const { home, indexDir, repo } = victim();
    mkdirSync(indexDir);
    symlinkSync(join(home, 'created-by-ocvector'), join(indexDir, '.gitignore'));

    const run = await failureOf(indexBuiltin(repo.root));
    expect(readdirSync(home)).toEqual(['.bashrc']);
    expect(run).toMatchObject(UNTRUSTED);
  });

  it('an .ocvector that links to a directory is refused, never chmodded or filled, by the indexer and the searcher', async () => {
    const { home, indexDir, repo } = victim();
    const elsewhere = join(home, 'projects');
    mkdirSync(elsewhere, { mode: 0o755 });
    symlinkSync(elsewhere, indexDir);

    const run = await failureOf(indexBuiltin(repo.root));
    expect(statSync(elsewhere).mode & 0o777).toBe(0o755);
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(run).toMatchObject({ ...UNTRUSTED, message: expect.stringContaining('the index directory') });
    await expect(Searcher.open({ indexDir })).rejects.toMatchObject(UNTRUSTED);
    await expect(dropIndex(indexDir)).rejects.toMatchObject(UNTRUSTED);
  });

  it('a searcher refuses an index.db that links to another index, and drop removes the link, not its target', async () => {
    const other = victim();
    await indexBuiltin(other.repo.root);
    const { indexDir, repo } = victim();
    await indexBuiltin(repo.root);
    rmSync(join(indexDir, 'index.db'));
    symlinkSync(join(other.indexDir, 'index.db'), join(indexDir, 'index.db'));

    await expect(Searcher.open({ indexDir })).rejects.toMatchObject(UNTRUSTED);
    expect(() => IndexStore.open(indexDir, { readonly: true })).toThrow(/index\.db in the index is a symbolic link/);
    await dropIndex(indexDir);
    expect(statSync(join(other.indexDir, 'index.db')).isFile()).toBe(true);
  });

  it('a link above the index directory is the user’s own layout: followed (the index directory itself is not)', async () => {
    const { home, repo } = victim();
    const via = join(home, 'work');
    symlinkSync(repo.root, via);
    await indexBuiltin(via);
    expect(statSync(join(repo.root, '.ocvector', 'index.db')).isFile()).toBe(true);
    const searcher = await Searcher.open({ indexDir: join(via, '.ocvector') });
    await searcher.close();

    const linked = join(home, 'linked-index');
    symlinkSync(join(repo.root, '.ocvector'), linked);
    await expect(Searcher.open({ indexDir: linked })).rejects.toMatchObject(UNTRUSTED);
  });
});
