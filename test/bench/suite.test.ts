/** The benchmark suite's own plumbing: figures kept per bench, gathered into one table, written to its docs page. The benches themselves run in bench/, never here. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PAGES, replaceGeneratedSection } from '../../eval/lib/readme.js';
import { runNode } from '../helpers/run-node.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'ocvector-bench-out-'));
process.env.OCVECTOR_BENCH_OUT = out;
const { readFigures, writeFigures } = await import('../../bench/lib/out.js');
const suite = (args: string[]) =>
  runNode([join(ROOT, 'node_modules/vite-node/vite-node.mjs'), join(ROOT, 'bench/suite.ts'), '--', ...args], {
    cwd: ROOT,
    env: { ...process.env, OCVECTOR_BENCH_OUT: out },
  });

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('bench figures', () => {
  it('keeps a quick run apart from a full one, and names the machine and time', () => {
    writeFigures('search', { queries: 100 }, false);
    writeFigures('search', { queries: 10 }, true);
    expect(readFigures<{ queries: number }>('search', false)).toMatchObject({
      bench: 'search',
      quick: false,
      figures: { queries: 100 },
      machine: expect.stringMatching(/cores.*GiB.*Node/),
    });
    expect(readFigures<{ queries: number }>('search', true)?.figures.queries).toBe(10);
    expect(Date.parse(readFigures('search', false)!.recordedAt)).not.toBeNaN();
    expect(readFigures('agent', false)).toBeUndefined();
  });

  it('gathers the recorded figures into one table, with ratios against their baselines, and says what is missing', async () => {
    const latency = (p50: number, p95: number) => ({ p50, p95 });
    writeFigures('search', {
      queries: 100,
      k: 10,
      corpora: [{ corpus: 'lib subset', elements: 10_290, hybrid: latency(4, 9), lexical: latency(1.5, 4.5) }],
    });
    writeFigures('agent', {
      corpus: 'lib subset',
      elements: 10_290,
      queries: 100,
      k: 8,
      p50: { searcher: 4, tool: 4.2, mcp: 5, cli: 160 },
    });
    const page = readFileSync(join(ROOT, PAGES.performance), 'utf8');
    const run = await suite(['--summary']);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines.find((line) => line.startsWith('Search'))).toMatch(
      /hybrid query p50 \/ p95\s+4\.00 ms \/ 9\.00 ms\s+lexical only 1\.50 ms \/ 4\.50 ms\s+p95 2\.00x\s+lib subset: 10,290 elements, 100 queries, k = 10/,
    );
    expect(lines.find((line) => line.includes('MCP call'))).toMatch(/5\.00 ms\s+Searcher 4\.00 ms\s+1\.25x/);
    expect(lines.find((line) => line.includes('CLI, a process'))).toMatch(/160\.00 ms\s+Searcher 4\.00 ms\s+40\.0x/);
    expect(run.stdout).toMatch(/No figures yet for: native, analysis, indexing/);
    // An incomplete table never replaces the one on the performance page.
    expect(readFileSync(join(ROOT, PAGES.performance), 'utf8')).toBe(page);
  });

  it('finds each generated table on its docs page, and none left in the README', () => {
    const markers = (path: string) =>
      [...readFileSync(join(ROOT, path), 'utf8').matchAll(/<!-- bench:([a-z-]+):start -->/g)].map((m) => m[1]);
    expect(markers(PAGES.performance)).toEqual([
      'summary',
      'native',
      'gpu',
      'analysis',
      'indexing',
      'index-type',
      'search',
      'server',
      'agent',
    ]);
    expect(markers(PAGES.retrievalQuality)).toEqual(['semble']);
    expect(markers(PAGES.evaluation)).toEqual(['eval', 'commits']);
    expect(markers('eval/README.md')).toEqual(['eval', 'commits']);
    expect(markers('README.md')).toEqual([]);
  });

  it('replaces only what lies between its markers, and names the page that lacks them', () => {
    const path = join(out, 'page.md');
    writeFileSync(path, 'before\n<!-- bench:x:start -->\nold\n<!-- bench:x:end -->\nafter\n');
    replaceGeneratedSection(path, 'x', '| new |\n');
    expect(readFileSync(path, 'utf8')).toBe('before\n<!-- bench:x:start -->\n| new |\n<!-- bench:x:end -->\nafter\n');
    expect(() => replaceGeneratedSection(path, 'y', 'text')).toThrow(`${path} has no <!-- bench:y:start -->`);
  });

  it('refuses an unknown bench name with the list of known ones', async () => {
    const run = await suite(['--only', 'search,fast']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--only: unknown fast; choose from native, analysis, indexing, search, agent/);
  });
});
