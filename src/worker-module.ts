/**
 * Where a worker thread's module is, and the options it starts with. Worker
 * threads load plain JavaScript only: from dist/ the module is the caller's
 * sibling; from the TypeScript sources (tests, benchmarks) it is the compiled
 * copy in dist/.
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's root, from src/ or from dist/ alike. */
const PACKAGE_ROOT = new URL('../', import.meta.url);

/**
 * The worker module `distPath` (relative to dist/, as `indexing/worker.js`)
 * for a caller at `from` (its import.meta.url), or undefined when it is not
 * built (`npm run build:ts`).
 */
export function builtWorkerModule(from: string, distPath: string): URL | undefined {
  const places = [new URL(`./${basename(distPath)}`, from), new URL(`dist/${distPath}`, PACKAGE_ROOT)];
  return places.find((place) => existsSync(fileURLToPath(place)));
}

/**
 * The Node.js options a worker thread starts with: the process's, less those
 * a thread that loads a module file refuses. A worker inherits them all by
 * default, and a process started as `node --input-type=module -e …` (a script
 * on the command line) gave each worker --input-type: it failed to start with
 * ERR_INPUT_TYPE_NOT_ALLOWED.
 */
export function workerExecArgv(): string[] {
  const kept: string[] = [];
  const given = process.execArgv;
  for (let i = 0; i < given.length; i++) {
    const option = given[i]!;
    if (option === '--input-type')
      i++; // its value follows
    else if (!option.startsWith('--input-type=')) kept.push(option);
  }
  return kept;
}
