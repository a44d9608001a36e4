import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Analyzer, AnalysisPool, type AnalysisEvent } from '../../src/index.js';

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
});
