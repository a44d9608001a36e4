/** The commands as a shell runs them (`npx oc-vector-index` in a checkout runs the file itself, not `node file`). */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { bin, version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
  version: string;
};

describe('the package bins', () => {
  it.each(Object.entries(bin))('%s runs as a program: built, with a node shebang, executable', async (_name, path) => {
    const file = join(ROOT, path);
    expect(readFileSync(file, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    const run = await new Promise<{ error: Error | null; stdout: string }>((resolve) =>
      execFile(file, ['--version'], { timeout: 30_000 }, (error, stdout) => resolve({ error, stdout })),
    );
    expect(run.error).toBeNull();
    expect(run.stdout.trim()).toBe(version);
  });
});
