/**
 * find_references as an agent calls it: checked arguments, the answer in
 * its published shape, within the size budget, behind the permission
 * callback, and never a throw.
 */
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodebaseSearchTool, FindReferencesTool, Indexer } from '../../src/index.js';
import { FIND_REFERENCES_OUTPUT } from '../../src/tool/references-schema.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';

const validateOutput = new Ajv({ allErrors: true }).compile(FIND_REFERENCES_OUTPUT);

/** A helper called from many files, so that a small budget has to cut. */
function files(): Record<string, string> {
  const out: Record<string, string> = {
    'src/util.ts': 'export function normalizePath(p: string): string {\n  return p.replace(/\\\\/g, "/");\n}\n',
  };
  for (let i = 0; i < 40; i++)
    out[`src/feature${i}.ts`] =
      `import { normalizePath } from './util';\nexport const path${i} = normalizePath('a/${i}');\n// normalizePath keeps it portable\n`;
  return out;
}

describe('FindReferencesTool', () => {
  let repo: TempRepo;
  beforeAll(async () => {
    repo = tempRepo(files());
    await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
  });
  afterAll(() => repo.cleanup());

  it('answers with the definition first, then each file and line, in the published shape', async () => {
    const search = new CodebaseSearchTool({ cwd: repo.root, budget: { maxOutputChars: 100_000 } });
    const tool = new FindReferencesTool(search);
    const output = await tool.execute({ symbol: 'normalizePath', limit: 2_000 });
    expect(validateOutput(output), JSON.stringify(validateOutput.errors)).toBe(true);
    expect(output.definitions).toEqual([
      expect.objectContaining({ path: 'src/util.ts', start_line: 1, name: 'normalizePath', element_type: 'function' }),
    ]);
    expect(output.files[0]).toMatchObject({ path: 'src/util.ts', defines: true });
    expect(output.total).toBe(1 + 40 * 3);
    expect(output.total_files).toBe(41);
    const feature = output.files.find((file) => file.path === 'src/feature7.ts')!;
    expect(feature.lines.map((line) => [line.line, line.call])).toEqual([
      [1, false],
      [2, true],
      [3, false],
    ]);
    await search.close();
  });

  it('stays within the size budget, saying what it left out', async () => {
    const search = new CodebaseSearchTool({ cwd: repo.root, budget: { maxOutputChars: 2_000 } });
    const output = await new FindReferencesTool(search).execute({ symbol: 'normalizePath', limit: 2_000 });
    expect(JSON.stringify(output).length).toBeLessThanOrEqual(2_000);
    expect(output.truncated).toBe(true);
    expect(output.files[0]!.path).toBe('src/util.ts');
    expect(output.note).toMatch(/of 121 lines listed, to stay within the size budget/);
    await search.close();
  });

  it('refuses bad arguments and denied calls with an error, never a throw', async () => {
    const search = new CodebaseSearchTool({
      cwd: repo.root,
      permission: (request) => request.tool !== 'find_references' || request.arguments.symbol !== 'secretThing',
    });
    const tool = new FindReferencesTool(search);
    expect((await tool.execute({})).error).toMatch(/"symbol" is required/);
    expect((await tool.execute({ symbol: 'x', extra: 1 })).error).toMatch(
      /unknown argument "extra" \(allowed: symbol, limit, repos\)/,
    );
    expect((await tool.execute({ symbol: 'two words' })).error).toMatch(/is not a symbol name/);
    expect((await tool.execute({ symbol: 'secretThing' })).error).toBe('the call was denied');
    const none = await tool.execute({ symbol: 'neverWritten' });
    expect(none).toMatchObject({ total: 0, files: [] });
    expect(none.note).toMatch(/occurs in no indexed file/);
    await search.close();
  });
});
