/**
 * The text of `oc-vector-index --dry-run` and `--status` as a newcomer reads it: the built-in
 * embedder's work said as vectors computed in this process (not "0 requests" beside thousands of
 * new vectors), and counts in the singular where there is one ("1 file", "1 model call").
 */
import { describe, expect, it } from 'vitest';
import type { DryRunReport } from '../../src/indexing/dry-run.js';
import { renderDryRun } from '../../src/cli/plan-report.js';
import { makeStyle } from '../../src/cli/terminal.js';

const plain = makeStyle(false);

function report(overrides: Partial<DryRunReport>): DryRunReport {
  return {
    root: '/repo',
    indexDir: '/repo/.ocvector',
    embedder: 'builtin:v2:512',
    analysisModel: null,
    files: { scanned: 840, unchanged: 0, toIndex: 840, toRemove: 0, excluded: 3, skipped: 0 },
    elements: 14_574,
    documentsToEmbed: 14_569,
    calls: { model: 0, embedding: 0 },
    byLanguage: {
      python: { files: 1, elements: 1, modelCalls: 1 },
      typescript: { files: 839, elements: 14_573, modelCalls: 0 },
    },
    byDirectory: {},
    estimate: { analysisMs: 1, embeddingMs: 1, modelMs: 0, writeMs: 1, totalMs: 3, assumptions: 'this machine' },
    durationMs: 1,
    ...overrides,
  };
}

describe('the dry run as text', () => {
  it('says an in-process embedder computes the new vectors here, with no requests', () => {
    const text = renderDryRun(report({}), plain);
    expect(text).toMatch(
      /need a new vector\n {2}embedder {3}builtin:v2:512: 14,569 vectors computed in this process \(no requests\)\n/,
    );
    expect(text).not.toMatch(/0 requests/);
  });

  it("counts a server embedder's requests, and says when there is nothing to embed", () => {
    const served = renderDryRun(report({ embedder: 'ollama:all-minilm', calls: { model: 0, embedding: 456 } }), plain);
    expect(served).toMatch(/embedder {3}ollama:all-minilm: 456 requests\n/);
    const nothing = renderDryRun(report({ documentsToEmbed: 0 }), plain);
    expect(nothing).toMatch(/embedder {3}builtin:v2:512: nothing to embed\n/);
  });

  it('puts a count of one in the singular, the table columns still aligned', () => {
    const text = renderDryRun(
      report({ analysisModel: 'qwen2.5-coder:0.5b', calls: { model: 1, embedding: 0 } }),
      plain,
    );
    expect(text).toContain('qwen2.5-coder:0.5b: 1 model call\n');
    const rows = text.split('\n').filter((line) => /^ {4}(python|typescript) /.test(line));
    expect(rows).toEqual([
      '    typescript          839 files   14,573 elements      0 model calls',
      '    python                1 file         1 element       1 model call',
    ]);
  });
});
