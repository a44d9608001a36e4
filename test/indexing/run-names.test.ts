/**
 * The indexing run has few names, the same in both stores: `IndexRun` (the indexing side's run
 * object), `StoreRun` (the store's side, `<Store>StoreRun` in each store) and the public
 * `RunOptions`; a dry run's types are `DryRun…`, and `LastRun` is the public record of a run.
 * A new type named after a run in the run's layers (src/indexing/, src/store/) fails here: give
 * it its role's name instead (a writer, a claim, a plan, totals).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');
const LAYERS = ['indexing', 'store'];
const ALLOWED = /^(IndexRun|StoreRun|\w+StoreRun|RunOptions|LastRun|DryRun\w*)$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('the names of a run', () => {
  it('are IndexRun, StoreRun (and each store’s) and RunOptions in the indexing and store layers', () => {
    const declared = new Set<string>();
    for (const layer of LAYERS)
      for (const file of sourceFiles(join(SRC, layer)))
        for (const [, name] of readFileSync(file, 'utf8').matchAll(
          /\b(?:class|interface|type|enum)\s+(\w*Run(?![a-z])\w*)/g,
        ))
          declared.add(name!);
    expect([...declared].filter((name) => !ALLOWED.test(name)).sort()).toEqual([]);
    expect(declared).toContain('IndexRun');
    expect(declared).toContain('StoreRun');
  });
});
