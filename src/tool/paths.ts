/**
 * Confines a path a model gives to the indexed root. Models are steered by
 * what they read, and what they read may be written by someone else: a
 * prompt-injected `../../etc` or a symlink out of the tree must not widen
 * what the tool reads.
 */
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, posix, relative, sep } from 'node:path';
import { PathOutsideRootError } from '../files/errors.js';
import { isInside } from '../files/scan.js';

/**
 * The root-relative form of `path` (forward slashes, no `.` or `..`), or a
 * PathOutsideRootError when it names anything outside `root`: by `..`, as
 * an absolute path elsewhere, or through a symlink that resolves outside.
 * A path that does not exist is fine (it simply matches nothing); its
 * existing ancestors are checked. Glob characters are kept as they are.
 */
export function confineToRoot(root: string, path: string): string {
  if (path.includes('\0')) throw new PathOutsideRootError('the path contains a NUL character');
  let candidate = path.trim().replace(/\\/g, '/');
  if (isAbsolute(candidate)) {
    if (!isInside(root, candidate)) throw new PathOutsideRootError(`${path} is outside the indexed root ${root}`);
    candidate = relative(root, candidate).split(sep).join('/');
  }
  const normalized = posix.normalize(candidate === '' ? '.' : candidate);
  if (normalized === '..' || normalized.startsWith('../'))
    throw new PathOutsideRootError(`${path} leads outside the indexed root`);
  const clean = normalized === '.' || normalized === './' ? '' : normalized.replace(/^\.\//, '');

  // Symlinks: the deepest part that exists must resolve inside the real root.
  const literal = clean.split(/[*?[]/)[0]!;
  const realRoot = realpathSync(root);
  let probe = join(root, literal);
  for (;;) {
    try {
      if (!isInside(realRoot, realpathSync(probe)))
        throw new PathOutsideRootError(`${path} resolves outside the indexed root (through a symbolic link)`);
      break;
    } catch (error) {
      if (error instanceof PathOutsideRootError) throw error;
      if (probe === root || dirname(probe) === probe) break;
      probe = dirname(probe); // not there (yet): check what is
    }
  }
  return clean;
}
