/**
 * Without the native addon (it cannot load on this machine) a search still
 * answers from the lexical index and says why; vector search alone fails
 * with a clear error. Each run is a child process: the addon is loaded once
 * per process.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanedUpAfterEach } from '../helpers/repo.js';
import { runCli, runNode } from '../helpers/run-node.js';
import { searchRepo } from '../helpers/search-repo.js';

const DIST = new URL('../../dist/index.js', import.meta.url).pathname;

describe('search when the native addon cannot load', () => {
  const owned = cleanedUpAfterEach();

  it('answers lexically and says why; --mode vector exits non-zero naming the problem; the status says degraded', async () => {
    const repo = (owned.repo = searchRepo());
    expect((await runCli('oc-vector-index', ['--no-llm', '.'], { cwd: repo.root })).code).toBe(0);
    // Not an addon: loading it fails as a library built for another system would.
    const broken = join(repo.root, 'broken.node');
    writeFileSync(broken, 'not a shared object');
    const env = { OCVECTOR_NATIVE_PATH: broken };

    const json = await runCli('oc-vector-search', ['hash a password with a salt', '--json'], { cwd: repo.root, env });
    expect(json.code, json.stderr).toBe(0);
    const output = JSON.parse(json.stdout) as {
      mode: string;
      fallback?: { reason: string };
      results: { name: string }[];
    };
    expect(output.mode).toBe('lexical');
    expect(output.fallback?.reason).toMatch(
      /cannot load the native FAISS addon: .*broken\.node.*answered by lexical search/,
    );
    expect(output.results[0]?.name).toBe('hashPassword');

    const text = await runCli('oc-vector-search', ['hash a password'], { cwd: repo.root, env });
    expect(text.code).toBe(0);
    expect(text.stderr).toMatch(/cannot load the native FAISS addon/);

    const vector = await runCli('oc-vector-search', ['hash a password', '--mode', 'vector'], { cwd: repo.root, env });
    expect(vector.code).not.toBe(0);
    expect(vector.stderr).toMatch(/vector search is unavailable: cannot load the native FAISS addon/);
    expect(vector.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace

    const status = await runNode(
      [
        '--input-type=module',
        '-e',
        `const { Searcher, setNativeAddonPath } = await import(${JSON.stringify(DIST)});
         setNativeAddonPath(${JSON.stringify(broken)});
         const searcher = await Searcher.open({ indexDir: ${JSON.stringify(join(repo.root, '.ocvector'))} });
         console.log(JSON.stringify(await searcher.embedderStatus()));
         searcher.close();`,
      ],
      { cwd: repo.root },
    );
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      available: false,
      problem: expect.stringMatching(/native FAISS addon/),
    });
  });
});
