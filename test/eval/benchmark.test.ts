import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  hitMatches,
  loadBenchmarkQueries,
  loadBenchmarkRepos,
  ndcgAt10,
  pathMatches,
  scoreRepo,
  summarize,
} from '../../src/eval/benchmark.js';
import { EvaluationError } from '../../src/eval/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'ocvector-benchmark-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, value: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
};
const hit = (path: string, startLine = 1, endLine = 10) => ({ path, startLine, endLine });

describe('the public benchmark protocol', () => {
  it('matches paths by equality or a suffix after a slash, either way round', () => {
    expect(pathMatches('binding/json.go', 'binding/json.go')).toBe(true);
    expect(pathMatches('/abs/repo/binding/json.go', 'binding/json.go')).toBe(true);
    expect(pathMatches('json.go', 'binding/json.go')).toBe(true);
    expect(pathMatches('xjson.go', 'json.go')).toBe(false);
  });

  it('needs overlapping lines when a target has a span', () => {
    const target = { path: 'lib/application.js', startLine: 152, endLine: 188 };
    expect(hitMatches(hit('lib/application.js', 100, 151), target)).toBe(false);
    expect(hitMatches(hit('lib/application.js', 180, 200), target)).toBe(true);
    expect(hitMatches(hit('lib/application.js', 189, 200), target)).toBe(false);
  });

  it('scores NDCG@10 with results as returned: a second chunk of a found file takes a place', () => {
    const targets = [{ path: 'a.go' }, { path: 'b.go' }];
    expect(ndcgAt10([hit('a.go'), hit('b.go')], targets)).toBeCloseTo(1);
    // b.go at rank 3 behind a second chunk of a.go.
    const ideal = 1 + 1 / Math.log2(3);
    expect(ndcgAt10([hit('a.go'), hit('a.go', 20, 30), hit('b.go')], targets)).toBeCloseTo(
      (1 + 1 / Math.log2(4)) / ideal,
    );
    // Two targets found at one rank count once.
    expect(
      ndcgAt10([hit('x.go'), hit('a.go')], [{ path: 'a.go' }, { path: 'a.go', startLine: 1, endLine: 5 }]),
    ).toBeCloseTo(1 / Math.log2(3) / ideal);
    expect(ndcgAt10([hit('x.go')], targets)).toBe(0);
    // Past rank 10 nothing counts.
    expect(ndcgAt10([...Array.from({ length: 10 }, (_, i) => hit(`x${i}.go`)), hit('a.go')], targets)).toBe(0);
  });

  it('averages queries per repository, and repositories for the headline, languages and categories', () => {
    const repo = (name: string, language: string) => ({ name, language, url: 'u', revision: 'r', benchmarkRoot: '' });
    const a = scoreRepo(repo('a', 'go'), [
      { category: 'symbol', ndcg10: 1 },
      { category: 'semantic', ndcg10: 0 },
    ]);
    const b = scoreRepo(repo('b', 'go'), [{ category: 'semantic', ndcg10: 0.5 }]);
    const c = scoreRepo(repo('c', 'rust'), [{ category: 'semantic', ndcg10: 1 }]);
    expect(a).toMatchObject({ ndcg10: 0.5, byCategory: { symbol: 1, semantic: 0 }, queries: 2 });
    const summary = summarize([a, b, c]);
    expect(summary.ndcg10).toBeCloseTo((0.5 + 0.5 + 1) / 3);
    expect(summary.byLanguage).toEqual({ go: 0.5, rust: 1 });
    expect(summary.byCategory.semantic).toBeCloseTo(0.5);
    expect(summary.byCategory.symbol).toBe(1);
  });

  it('reads annotations: paths, spans, relevant and secondary together, the category inferred when absent', () => {
    const file = write('gin.json', [
      {
        query: 'radix tree path matching',
        relevant: ['tree.go'],
        secondary: [{ path: 'gin.go', start_line: '10', end_line: 20 }],
        category: 'semantic',
      },
      { query: 'Context', relevant: ['context.go'] },
      { query: 'how routes are grouped', relevant: ['routergroup.go'] },
    ]);
    const queries = loadBenchmarkQueries(file);
    expect(queries[0]!.targets).toEqual([{ path: 'tree.go' }, { path: 'gin.go', startLine: 10, endLine: 20 }]);
    expect(queries.map((q) => q.category)).toEqual(['semantic', 'symbol', 'architecture']);
  });

  it('refuses damaged data with a message naming the file and the entry', () => {
    expect(() => loadBenchmarkQueries(write('bad.json', '{not json'))).toThrow(EvaluationError);
    expect(() => loadBenchmarkQueries(write('empty.json', [{ query: 'x', relevant: [] }]))).toThrow(
      /query 0 \("x"\) has no targets/,
    );
    expect(() =>
      loadBenchmarkQueries(write('span.json', [{ query: 'x', relevant: [{ path: 'a', start_line: 'one' }] }])),
    ).toThrow(/not whole numbers/);
    expect(() => loadBenchmarkRepos(write('repos.json', [{ name: 'a', language: 'go', url: 'u' }]))).toThrow(
      /entry 0 has no revision/,
    );
    expect(() => loadBenchmarkRepos(join(dir, 'missing.json'))).toThrow(/cannot read/);
  });
});
