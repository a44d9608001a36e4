/**
 * Crash safety: an indexing process killed with SIGKILL at several points
 * leaves an index that opens, is consistent (every FAISS id has its row and
 * every row its vector), and that the next run completes to the same state
 * as an index that was never interrupted.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../src/indexing/indexer.js';
import { readIndex } from '../helpers/index-state.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';

const CHILD = new URL('../helpers/index-child.mjs', import.meta.url).pathname;
const CORPUS = new URL('../../node_modules/typescript/lib/', import.meta.url).pathname;

/** Runs the child indexer; kills it when `killWhen` first returns true. Resolves with how it ended. */
function indexInChild(
  root: string,
  killWhen: (event: { type: string; done?: number; event?: { type: string } }) => boolean,
): Promise<'killed' | 'finished'> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, root], { stdio: ['ignore', 'pipe', 'pipe'] });
    let killed = false;
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!killed && killWhen(JSON.parse(line))) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve('killed');
      else if (code === 0) resolve('finished');
      else reject(new Error(`the child indexer exited with ${code}: ${stderr}`));
    });
  });
}

function elementKeys(elements: { path: string; name: string; startLine: number }[]): string[] {
  return elements.map((e) => `${e.path}#${e.name}@${e.startLine}`).sort();
}

/** The elements of the same tree indexed without interruption, elsewhere. */
async function referenceFor(root: string): Promise<string[]> {
  const clean = tempRepo();
  try {
    cpSync(join(root, 'lib'), join(clean.root, 'lib'), { recursive: true });
    await new Indexer({ path: clean.root, embedder: 'builtin', llm: false }).run();
    return elementKeys((await readIndex(join(clean.root, '.ocvector'))).elements);
  } finally {
    clean.cleanup();
  }
}

type Event = { type: string; done?: number; event?: { type: string } };

describe('crash safety', () => {
  let repo: TempRepo;

  beforeAll(() => {
    repo = tempRepo();
    for (const name of readdirSync(CORPUS).filter((n) => /^lib\..*\.d\.ts$/.test(n)))
      cpSync(join(CORPUS, name), join(repo.root, 'lib', name));
  });
  afterAll(() => repo?.cleanup());

  const fresh = () => rmSync(join(repo.root, '.ocvector'), { recursive: true, force: true });
  /** Moves, deletes and edits files: a re-index with removals and additions. */
  const reshape = () => {
    const names = readdirSync(join(repo.root, 'lib')).filter((n) => n.endsWith('.d.ts'));
    mkdirSync(join(repo.root, 'lib', 'moved'), { recursive: true });
    for (const name of names.filter((n) => n.startsWith('lib.es2015')))
      renameSync(join(repo.root, 'lib', name), join(repo.root, 'lib', 'moved', name));
    for (const name of names.filter((n) => n.startsWith('lib.dom'))) rmSync(join(repo.root, 'lib', name));
    for (const name of names.filter((n) => n.startsWith('lib.es2020'))) {
      const path = join(repo.root, 'lib', name);
      writeFileSync(path, readFileSync(path, 'utf8').replaceAll('interface ', 'interface Edited'));
    }
  };

  const cases: [string, () => void, (event: Event) => boolean][] = [
    ['before the first commit', fresh, (e) => e.type === 'progress' && e.done === 3],
    ['between commits', fresh, (e) => e.type === 'progress' && e.done === 70],
    [
      'right after the FAISS file is written',
      fresh,
      (e) => e.type === 'vector-index' && e.event?.type === 'index-written',
    ],
    ['while re-indexing moved, deleted and edited files', reshape, (e) => e.type === 'progress' && e.done === 12],
  ];

  it.each(cases)(
    'killed %s: the index opens consistent, and the next run completes it',
    async (_, prepare, killWhen) => {
      prepare();
      const reference = await referenceFor(repo.root);
      expect(reference.length).toBeGreaterThan(1_000);
      expect(await indexInChild(repo.root, killWhen)).toBe('killed');
      // The dead process's lock is left behind; the database and the FAISS file must still agree.
      const after = await readIndex(join(repo.root, '.ocvector'));
      expect(after.consistency).toMatchObject({ ok: true, missing: [] });

      expect(await indexInChild(repo.root, () => false)).toBe('finished');
      const final = await readIndex(join(repo.root, '.ocvector'));
      expect(final.consistency.ok).toBe(true);
      expect(elementKeys(final.elements)).toEqual(reference);
      expect(final.files.filter((f) => f.status === 'failed')).toEqual([]);
    },
    120_000,
  );
});
