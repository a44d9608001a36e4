/**
 * A first index starts its analysis threads before it knows its files (indexer-setup.ts,
 * startAnalysisEarly): the run then analyses on those threads, and a run that fails before its
 * plan closes them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_CONTENT_LIMITS } from '../../src/analysis/content.js';
import { AnalysisPool } from '../../src/indexing/pool.js';
import { IndexerSetup } from '../../src/indexing/indexer-setup.js';
import { Indexer } from '../../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A directory of `files` small TypeScript files. */
function tempRoot(files = 1): string {
  const root = mkdtempSync(join(tmpdir(), 'ocvector-early-'));
  dirs.push(root);
  for (let i = 0; i < files; i++)
    writeFileSync(join(root, `f${i}.ts`), `export function alpha${i}(): number {\n  return ${i};\n}\n`);
  return root;
}

function setupFor(root: string): IndexerSetup {
  return new IndexerSetup({
    root,
    indexDir: join(root, '.ocvector'),
    options: { path: root, threads: 1 },
    limits: DEFAULT_CONTENT_LIMITS,
    emit: () => {},
  });
}

describe('analysis threads started before the plan', () => {
  it('are what the run analyses on, however few its files, once', async () => {
    const setup = setupFor(tempRoot());
    // Without them, two files are analysed on the calling thread.
    expect(setup.analyzerFor(2).pool).toBeUndefined();
    setup.startAnalysisEarly();
    const { analyzer, pool } = setup.analyzerFor(2);
    expect(pool).toBeInstanceOf(AnalysisPool);
    expect(analyzer).toBe(pool);
    expect(setup.analyzerFor(2).pool).toBeUndefined();
    await pool!.close();
  });

  it('are closed when no run takes them', async () => {
    const close = vi.spyOn(AnalysisPool.prototype, 'close');
    const setup = setupFor(tempRoot());
    setup.startAnalysisEarly();
    await setup.closeEarlyAnalysis();
    expect(close).toHaveBeenCalledTimes(1);
    expect(setup.analyzerFor(2).pool).toBeUndefined();
    // A run with no file to analyse closes them too.
    setup.startAnalysisEarly();
    expect(setup.analyzerFor(0)).toEqual({});
    expect(close).toHaveBeenCalledTimes(2);
  });

  it('are started by a first index of many files, and closed when it fails before its plan', async () => {
    const close = vi.spyOn(AnalysisPool.prototype, 'close');
    const root = tempRoot(64);
    // Nothing listens on port 9: the embedder cannot start, after the threads did.
    const indexer = new Indexer({ path: root, llm: false, embedder: { host: 'http://127.0.0.1:9', model: 'none' } });
    await expect(indexer.run()).rejects.toThrow();
    expect(close).toHaveBeenCalledTimes(1);
    // A first index that succeeds analyses on them, closed at its end.
    close.mockClear();
    const summary = await new Indexer({ path: tempRoot(64), llm: false, embedder: 'builtin', threads: 1 }).run();
    expect(summary.files.added).toBe(64);
    expect(close).toHaveBeenCalledTimes(1);
  });

  it('are not started for a first index of a few files: those are analysed on the calling thread', async () => {
    const close = vi.spyOn(AnalysisPool.prototype, 'close');
    const summary = await new Indexer({ path: tempRoot(3), llm: false, embedder: 'builtin', threads: 1 }).run();
    expect(summary.files.added).toBe(3);
    expect(close).not.toHaveBeenCalled();
  });
});
