/**
 * oc-vector-search run in a clone whose index records a root outside it (the built
 * command, spawned): nothing of that root is printed, and a note says why it is left out.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-node.js';
import { cleanUp, poisonedClone, QUERY, ROOTS } from './outside-roots-fixture.js';

afterEach(cleanUp);

describe.each(ROOTS)('oc-vector-search in a clone whose index records a root at %s', (_, root) => {
  it('prints nothing of it, and notes that it is not searched', async () => {
    const { repo } = await poisonedClone(root);
    for (const args of [
      [QUERY, '-k', '20'],
      [QUERY, '-k', '20', '--json'],
      ['--refs', 'authenticate'],
    ]) {
      const run = await runCli('oc-vector-search', args, { cwd: repo.root });
      expect(run.code).toBe(0);
      expect(run.stdout + run.stderr).not.toContain('OUTSIDE-MARKER');
      expect(run.stderr).toMatch(/note: the index records the repository etc at .*: it is not searched/);
    }
  });
});
