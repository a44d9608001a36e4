/**
 * Linked git worktrees (`git worktree add`): where an agent works on a branch of its own,
 * beside the main checkout. Read from the files git leaves, without running git: a
 * linked worktree's `.git` is a file naming its git directory, and that directory's
 * `commondir` names the repository's own `.git`, whose parent is the main worktree.
 *
 * These files arrive with the tree, so they are believed only as git believes them: the
 * git directory must be one of the repository's `worktrees/` and its `gitdir` file must
 * name this worktree's `.git` back. A `.git` file alone can name any repository on the
 * machine; the back-pointer is written by git in a repository the user already has.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { isInside } from './scan.js';
import { readSmallFileSync } from './small-file.js';

/** Each of these files holds one path and a newline; more is not a file git wrote. */
const POINTER_FILE_BYTES = 4_096;

/** What a worktree's `.git` file says of its main worktree: believed, or named but refused (why). */
export type WorktreeLink = { main: string } | { claimed: string; why: string };

/**
 * The main worktree of the repository `root` is a linked worktree of; undefined when
 * `root` is the main worktree, no git work tree, a submodule (its `.git` file names a
 * directory without `commondir`), or one of a bare repository (which has no main worktree).
 * A `.git` file whose repository does not name `root` back is refused, with the reason.
 */
export function worktreeLinkOf(root: string): WorktreeLink | undefined {
  const realRoot = realPath(root);
  if (!realRoot) return undefined;
  const gitFile = join(realRoot, '.git');
  const named = readPointer(gitFile)
    ?.match(/^gitdir: (.+)$/m)?.[1]
    ?.trim();
  const gitDir = named && realPath(resolve(realRoot, named));
  if (!gitDir) return undefined;
  const common = readPointer(join(gitDir, 'commondir'))?.trim();
  const commonDir = common && realPath(resolve(gitDir, common));
  if (!commonDir || basename(commonDir) !== '.git') return undefined;
  const main = dirname(commonDir);
  if (main === realRoot) return undefined;
  const refused = (why: string) => ({ claimed: main, why: `this worktree's .git file names ${gitDir}, ${why}` });
  if (dirname(gitDir) !== join(commonDir, 'worktrees')) return refused(`which is not one of ${commonDir}'s worktrees`);
  const back = readPointer(join(gitDir, 'gitdir'))?.trim();
  if (!back || realPath(resolve(gitDir, back)) !== gitFile)
    return refused(
      `whose gitdir file does not name ${gitFile} back, as git requires (git worktree repair mends a moved worktree)`,
    );
  // Git makes no main worktree inside one of its linked worktrees: such a pair came with the tree.
  if (isInside(realRoot, main)) return refused(`whose repository lies inside this worktree`);
  return { main };
}

/** The main worktree `root` is a believed linked worktree of; undefined for anything else. */
export function mainWorktreeOf(root: string): string | undefined {
  const link = worktreeLinkOf(root);
  return link && 'main' in link ? link.main : undefined;
}

/** A git pointer file's text; undefined where there is none, or where it is anything but a small regular file. */
function readPointer(path: string): string | undefined {
  return readSmallFileSync(path, POINTER_FILE_BYTES);
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
