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
 * What a worker thread is started with besides its data: the process's Node.js options,
 * inherited as they are (no `execArgv`), unless the process was started with --input-type (a
 * script on the command line: `node --input-type=module -e …`), which stops a worker loading
 * its module file (ERR_INPUT_TYPE_NOT_ALLOWED). Then none: options given explicitly are
 * checked, and V8's (--max-old-space-size) are refused there, though the worker has them
 * anyway, V8's flags being the process's.
 */
export function workerStartOptions(): { execArgv?: string[] } {
  const scriptGiven = process.execArgv.some(
    (option) => option === '--input-type' || option.startsWith('--input-type='),
  );
  return scriptGiven ? { execArgv: [] } : {};
}
