/**
 * Where a worker thread's module is. Worker threads load plain JavaScript
 * only: from dist/ the module is the caller's sibling; from the TypeScript
 * sources (tests, benchmarks) it is the compiled copy in dist/.
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
