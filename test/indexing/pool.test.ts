import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { contentHash } from '../../src/files/hash.js';
import {
  Analyzer,
  AnalysisPool,
  BUILTIN_EMBEDDER_VERSION,
  BuiltinEmbedder,
  type AnalysisEvent,
} from '../../src/internal.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const sources = (readdirSync(join(root, 'src'), { recursive: true }) as string[])
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join(root, 'src', f));

describe('AnalysisPool', () => {
  it('gives the same results as the single-threaded analyser, on every core', async () => {
    const events: AnalysisEvent[] = [];
    const pool = new AnalysisPool({ threads: 2, onEvent: (e) => events.push(e) });
    const dir = mkdtempSync(join(tmpdir(), 'ocvector-pool-'));
    const binary = join(dir, 'data.ts');
    writeFileSync(binary, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 2, 3]));
    const files = [...sources, binary];
    const pooled = await Promise.all(files.map((f) => pool.analyzeFile(f)));
    const single = new Analyzer();
    for (let i = 0; i < files.length; i++) expect(pooled[i]).toEqual(await single.analyzeFile(files[i]!));
    expect(pooled.at(-1)).toMatchObject({ skipped: 'binary' });
    expect(events).toContainEqual(expect.objectContaining({ type: 'skipped', reason: 'binary' }));
    expect(sources.length).toBeGreaterThan(20);
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
    await expect(pool.analyzeFile(files[0]!)).rejects.toThrow(/closed/);
  });

  it('reads files on its workers: the bytes, hash and analysis of the calling thread, unchanged content unanalysed, a FIFO or a missing file refused', async () => {
    const pool = new AnalysisPool({ threads: 2 });
    const dir = mkdtempSync(join(tmpdir(), 'ocvector-pool-read-'));
    try {
      // A small file (its buffer may share Node's pool on the worker) and a large one (a buffer of its own).
      const small = join(dir, 'small.ts');
      writeFileSync(small, 'export function small(): number {\n  return 1;\n}\n');
      const large = join(dir, 'large.ts');
      writeFileSync(large, Array.from({ length: 2_000 }, (_, i) => `export const value${i} = ${i};`).join('\n'));
      const single = new Analyzer();
      for (const path of [small, large]) {
        const bytes = readFileSync(path);
        const read = await pool.readAndAnalyze(path, path, undefined);
        expect(read.status).toBe('analysed');
        if (read.status !== 'analysed') continue;
        expect(Buffer.from(read.bytes).equals(bytes)).toBe(true);
        expect(read.hash).toBe(contentHash(bytes));
        expect(read.output).toEqual(await single.analyzeWithText(path, bytes));
        const again = await pool.readAndAnalyze(path, path, read.hash);
        expect(again).toMatchObject({ status: 'same-content', hash: read.hash });
      }
      const fifo = join(dir, 'pipe.ts');
      spawnSync('mkfifo', [fifo]);
      expect(await pool.readAndAnalyze(fifo, fifo, undefined)).toMatchObject({
        status: 'unreadable',
        error: { code: 'EINVAL', message: expect.stringMatching(/no longer a regular file/) },
      });
      expect(await pool.readAndAnalyze(join(dir, 'gone.ts'), 'gone.ts', undefined)).toMatchObject({
        status: 'unreadable',
        error: { code: 'ENOENT' },
      });
    } finally {
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('hands a worker its next file before the last is done: it reads on while the calling thread is busy', async () => {
    const pool = new AnalysisPool({ threads: 1 });
    const dir = mkdtempSync(join(tmpdir(), 'ocvector-pool-held-'));
    try {
      const paths = ['a.ts', 'b.ts', 'c.ts'].map((name) => join(dir, name));
      for (const path of paths) writeFileSync(path, 'export const x = 1;\n');
      await pool.readAndAnalyze(paths[0]!, paths[0]!, undefined); // the worker is up, its grammar loaded
      const reads = paths.map((path) => pool.readAndAnalyze(path, path, undefined));
      // The calling thread busy, as an indexer committing a batch: it hands out nothing meanwhile.
      const busyUntil = Date.now() + 1_000;
      while (Date.now() < busyUntil);
      const [first, second, third] = await Promise.all(reads);
      // The second file was the worker's already; the third waited for the calling thread.
      expect(first!.readAt).toBeLessThan(busyUntil);
      expect(second!.readAt).toBeLessThan(busyUntil);
      expect(third!.readAt).toBeGreaterThanOrEqual(busyUntil);
      expect([first, second, third].map((read) => read!.status)).toEqual(['analysed', 'analysed', 'analysed']);
    } finally {
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('embeds with the built-in embedder on its workers: the same vectors as on the calling thread', async () => {
    const pool = new AnalysisPool({ threads: 2 });
    try {
      const texts = sources.slice(0, 12).map((path) => readFileSync(path, 'utf8'));
      const builtin = (dimension: number) => `builtin:v${BUILTIN_EMBEDDER_VERSION}:${dimension}`;
      const [whole, first, second, narrow] = await Promise.all([
        pool.embedOnWorker(builtin(512), texts),
        pool.embedOnWorker(builtin(512), texts.slice(0, 6)),
        pool.embedOnWorker(builtin(512), texts.slice(6)),
        pool.embedOnWorker(builtin(64), texts.slice(0, 2)),
      ]);
      const expected = new BuiltinEmbedder().embedDocumentsSync(texts);
      expect(whole).toEqual(expected);
      expect(Float32Array.from([...first!, ...second!])).toEqual(expected);
      expect(narrow).toEqual(new BuiltinEmbedder({ dimension: 64 }).embedDocumentsSync(texts.slice(0, 2)));
      await expect(pool.embedOnWorker(builtin(3), texts)).rejects.toThrow(/dimension/);
      // An id no backend on the workers makes: refused, not embedded by another.
      await expect(pool.embedOnWorker('builtin:v0:512', texts)).rejects.toThrow(/no embedder backend/);
    } finally {
      await pool.close();
    }
  });

  it('closes at any moment, even while its workers still load the grammars, without aborting the process', () => {
    // terminate() during a grammar's native initialisation used to abort the
    // whole process (an uncaught Napi::Error). The load takes tens of ms, so
    // closing after 0, 1, 2 … 79 ms crosses it; the old pool failed 7 runs in 8.
    const script = `
      const { AnalysisPool } = await import(${JSON.stringify(new URL('../../dist/indexing/pool.js', import.meta.url).href)});
      for (let ms = 0; ms < 80; ms++) {
        const pool = new AnalysisPool({ threads: 2 });
        const busy = ms % 4 === 0 ? pool.analyzeFile(${JSON.stringify(sources[0])}).catch((error) => error) : null;
        await new Promise((resolve) => setTimeout(resolve, ms));
        await pool.close();
        await busy;
      }
      process.stdout.write('closed 80 pools');`;
    // Run as a file: under `node -e` the timing differs and the old pool never failed.
    const dir = mkdtempSync(join(tmpdir(), 'ocvector-pool-'));
    writeFileSync(join(dir, 'close.mjs'), script);
    const child = spawnSync(process.execPath, [join(dir, 'close.mjs')], { encoding: 'utf8', timeout: 120_000 });
    rmSync(dir, { recursive: true, force: true });
    expect(child.stderr).not.toMatch(/terminate called/);
    expect({ status: child.status, stdout: child.stdout }).toEqual({ status: 0, stdout: 'closed 80 pools' });
  });

  it('starts its threads in a process run as `node --input-type=module -e`, or with V8 options', () => {
    // A worker inherits the process's options, and --input-type stops one loading its module
    // file; options given to a worker explicitly are checked, and V8's are refused there.
    const dist = (path: string) => JSON.stringify(new URL(`../../dist/${path}`, import.meta.url).href);
    const script = `
      const { AnalysisPool } = await import(${dist('indexing/pool.js')});
      const pool = new AnalysisPool({ threads: 1 });
      const result = await pool.analyzeFile(${JSON.stringify(sources[0])});
      await pool.close();
      process.stdout.write(String(result.elements.length > 0));`;
    const dir = mkdtempSync(join(tmpdir(), 'ocvector-pool-'));
    writeFileSync(join(dir, 'analyse.mjs'), script);
    const runs = [
      ['--input-type=module', '--no-warnings', '-e', script],
      ['--max-old-space-size=1024', '--input-type=module', '-e', script],
      ['--max-old-space-size=1024', '--stack-size=900', join(dir, 'analyse.mjs')],
    ];
    try {
      for (const args of runs) {
        const child = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 60_000 });
        expect({ args: args.slice(0, 2), stderr: child.stderr, stdout: child.stdout }).toEqual({
          args: args.slice(0, 2),
          stderr: '',
          stdout: 'true',
        });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
