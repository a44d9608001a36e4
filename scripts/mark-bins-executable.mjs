// Makes the compiled CLIs that package.json lists under "bin" executable.
// tsc writes them 0644, and `npx oc-vector-index` in a checkout runs the file
// itself (npm sets the mode only for packages it installs).
import { chmodSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { bin = {} } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
for (const [name, path] of Object.entries(bin)) {
  const file = join(root, path);
  try {
    chmodSync(file, statSync(file).mode | 0o111);
  } catch (error) {
    console.error(`mark-bins-executable: ${name} (${path}): ${error.message}; build the TypeScript first`);
    process.exit(1);
  }
}
