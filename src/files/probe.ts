/**
 * A quick look at how much a directory holds, before it is scanned (scan.ts): enough to decide
 * whether a first index should start its analysis threads at once (indexing/update-index.ts).
 */
import { type Dirent, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Directories a probe never enters: what the scan leaves out anyway in nearly every repository. */
const PASSED_OVER = new Set(['node_modules']);

/**
 * Whether `path` holds at least `min` regular files, looked for breadth first, stopping as soon
 * as it is known; dot-directories and node_modules are not counted. A path that is a file, or
 * cannot be read, holds none. At most `maxDirectories` directories are read.
 */
export function holdsAtLeast(path: string, min: number, maxDirectories = 256): boolean {
  const directories = [path];
  let files = 0;
  for (let i = 0; i < directories.length && i < maxDirectories; i++) {
    let entries: Dirent[];
    try {
      entries = readdirSync(directories[i]!, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.') || PASSED_OVER.has(entry.name)) continue;
      if (entry.isDirectory()) directories.push(join(directories[i]!, entry.name));
      else if (entry.isFile() && ++files >= min) return true;
    }
  }
  return false;
}
