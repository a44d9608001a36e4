/**
 * What `npm test` reports for the real-model tests on a machine where `npm run models` has not run:
 * each is skipped, with the reason and how to prepare them, and the closing line counts them as
 * skipped, not passed. Where CI requires them (OCVECTOR_REAL_MODELS=required), they fail instead.
 *
 * The two files run in a child vitest over an empty model cache (OCVECTOR_CACHE), so the answer
 * is the same on a machine that has the models.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { NOT_PREPARED, REQUIRED_VARIABLE } from '../helpers/real-ollama.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REAL_MODEL_FILES = ['test/models/real-ollama.test.ts', 'test/models/real-index.test.ts'];
const emptyCache = mkdtempSync(join(tmpdir(), 'ocvector-no-models-'));
afterAll(() => rmSync(emptyCache, { recursive: true, force: true }));

function runRealModelTests(required: boolean): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, OCVECTOR_CACHE: emptyCache, NO_COLOR: '1' };
  delete env[REQUIRED_VARIABLE];
  if (required) env[REQUIRED_VARIABLE] = 'required';
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [
        join(ROOT, 'node_modules/vitest/vitest.mjs'),
        'run',
        // Verbose: vitest's default reporter names no test of a file whose tests are all skipped.
        '--reporter=verbose',
        '--reporter=./test/reporters/summary-line.ts',
        ...REAL_MODEL_FILES,
      ],
      { cwd: ROOT, env, timeout: 90_000, maxBuffer: 16 << 20 },
      (_error, stdout, stderr) => resolve(stdout + stderr),
    ),
  );
}

describe('the real-model tests where the models are not prepared', () => {
  it('are each skipped with the reason, and the closing line counts them as skipped', async () => {
    const output = await runRealModelTests(false);
    const closing = /^tests: (\d+) passed, (\d+) failed, (\d+) skipped$/m.exec(output);
    expect(closing?.slice(1, 3)).toEqual(['0', '0']);
    const skipped = Number(closing?.[3]);
    expect(skipped).toBeGreaterThanOrEqual(REAL_MODEL_FILES.length);
    expect(output).toContain(`\nskipped ${skipped}: ${NOT_PREPARED}\n`);
    // vitest's own lines name each skipped test with the reason.
    expect(output.split('\n').filter((line) => line.endsWith(`[${NOT_PREPARED}]`))).toHaveLength(skipped);
  }, 120_000);

  it(`fail, not skip, where ${REQUIRED_VARIABLE}=required`, async () => {
    const output = await runRealModelTests(true);
    expect(output).toMatch(/^tests: 0 passed, [1-9]\d* failed, 0 skipped$/m);
    expect(output).toContain(`${REQUIRED_VARIABLE}=required, and the real models are not prepared here`);
  }, 120_000);
});
