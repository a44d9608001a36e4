/** The package as a CommonJS program loads it: `require('ocvector')` (Node >= 20.19 can require ES modules). */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('require from CommonJS', () => {
  it('gives the same API as import, for ocvector and ocvector/mcp', async () => {
    const script =
      "const o = require('ocvector'); const m = require('ocvector/mcp'); console.log(JSON.stringify([Object.keys(o).sort(), Object.keys(m)]))";
    const [required, mcp] = JSON.parse(
      execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' }),
    ) as [string[], string[]];
    const imported = Object.keys(await import('ocvector')).sort();
    expect(required).toEqual(imported);
    expect(required).toContain('Searcher');
    expect(mcp.sort()).toEqual([
      'TokenTable',
      'createCodebaseMcpServer',
      'createCodebaseMcpService',
      'parseTokens',
      'readTokensFile',
      'serveMcpOverHttp',
    ]);
  });
});
