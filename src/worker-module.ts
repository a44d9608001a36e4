/**
 * Where a worker thread's module is. Worker threads load plain JavaScript
 * only: from dist/ the module is the caller's sibling; from the TypeScript
 * sources (tests, benchmarks) it is the compiled copy in dist/.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The first of the module's places that exists, or undefined when it is not built (`npm run build:ts`). */
export function builtWorkerModule(sibling: URL, compiled: URL): URL | undefined {
  return [sibling, compiled].find((place) => existsSync(fileURLToPath(place)));
}
