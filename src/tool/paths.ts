/**
 * Confines a path a model gives to the repositories it searches. Models are
 * steered by what they read, and what they read may be written by someone
 * else: a prompt-injected `../../etc` or a symlink out of the tree must not
 * widen what the tool reads. The errors name no root and no repository: a
 * caller may be allowed some repositories only, and where they live is none
 * of its business.
 */
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, posix, relative, sep } from 'node:path';
import { PathOutsideRootError } from '../files/errors.js';
import { isInside } from '../files/scan.js';

/**
 * The root-relative form of `path` (forward slashes, no `.` or `..`), or a
 * PathOutsideRootError when it names anything outside `roots` (the
 * directories of the repositories searched): by `..`, as an absolute path
 * in none of them (one inside a root is made relative to it), or through a
 * symlink that resolves outside. A path that does not exist is fine (it
 * simply matches nothing); its existing ancestors are checked. A root that
 * is not on this machine (a shared store served without checkouts) has no
 * links to follow: its recorded path is all that is checked. Glob
 * characters are kept as they are. `where` names the roots in the errors.
 */
export function confineToRoots(
  roots: readonly string[],
  path: string,
  where = 'the repository being searched',
): string {
  if (path.includes('\0')) throw new PathOutsideRootError('the path contains a NUL character');
  let candidate = path.trim().replace(/\\/g, '/');
  let within = roots;
  if (isAbsolute(candidate)) {
    const root = holdingRoot(roots, candidate);
    if (root === undefined) throw new PathOutsideRootError(`${path} is outside ${where}`);
    candidate = relative(root, candidate).split(sep).join('/');
    within = [root];
  }
  const normalized = posix.normalize(candidate === '' ? '.' : candidate);
  if (normalized === '..' || normalized.startsWith('../'))
    throw new PathOutsideRootError(`${path} leads outside ${where}`);
  const clean = normalized === '.' || normalized === './' ? '' : normalized.replace(/^\.\//, '');
  for (const root of within) refuseLinksOut(root, clean, `${path} resolves outside ${where} (through a symbolic link)`);
  return clean;
}

/** The deepest of `roots` that holds the absolute `path` (one repository may sit inside another's directory). */
export function holdingRoot(roots: readonly string[], path: string): string | undefined {
  const candidate = path.trim().replace(/\\/g, '/');
  return roots.filter((root) => isInside(root, candidate)).sort((a, b) => b.length - a.length)[0];
}

/** Symlinks: the deepest part of `clean` that exists under `root` must resolve inside the real root. */
function refuseLinksOut(root: string, clean: string, refusal: string): void {
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return; // not checked out here: nothing is read from it, so no link can lead out
  }
  const literal = clean.split(/[*?[]/)[0]!;
  let probe = join(root, literal);
  for (;;) {
    try {
      if (!isInside(realRoot, realpathSync(probe))) throw new PathOutsideRootError(refusal);
      return;
    } catch (error) {
      if (error instanceof PathOutsideRootError) throw error;
      if (probe === root || dirname(probe) === probe) return;
      probe = dirname(probe); // not there (yet): check what is
    }
  }
}
