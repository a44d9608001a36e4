/**
 * Reads the small files that arrive with a repository and steer how it is read: a linked
 * worktree's `.git` file and the `commondir` and `gitdir` files it leads to (worktree.ts),
 * `.gitignore` and `.ocvectorignore` (rules.ts). They are data, and may be anything: a FIFO
 * would block the reading thread forever (and with it the process's SIGTERM handler), a link
 * to `/dev/zero` would fill memory, a link could lead out of the tree. So only a regular file
 * that is not a link is read, and only up to a size such a file never reaches; anything else
 * is no file at all, as for git, which reads neither a `.gitignore` that is a link nor a
 * `.git` file that is not a regular file.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type Stats } from 'node:fs';
import { lstat, open } from 'node:fs/promises';

/** Opened so that neither a FIFO nor a link swapped in after the lstat can block or lead elsewhere. */
const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

/** The text of the regular file at `path` when it holds at most `maxBytes`; undefined for anything else. */
export function readSmallFileSync(path: string, maxBytes: number): string | undefined {
  // Looked at before it is opened: opening a device can itself act (a tape rewinds, a watchdog starts).
  if (!isSmallRegularFile(lstatOrUndefined(path), maxBytes)) return undefined;
  let fd: number;
  try {
    fd = openSync(path, FLAGS);
  } catch {
    return undefined;
  }
  try {
    const info = fstatSync(fd);
    if (!isSmallRegularFile(info, maxBytes)) return undefined;
    // One byte more than it holds: a file that grew since the fstat is refused, not cut short.
    const buffer = Buffer.alloc(info.size + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return length > info.size ? undefined : buffer.toString('utf8', 0, length);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The same without blocking the event loop: for the scan, which reads an ignore file in every directory. */
export async function readSmallFile(path: string, maxBytes: number): Promise<string | undefined> {
  if (!isSmallRegularFile(await lstat(path).catch(() => undefined), maxBytes)) return undefined;
  const handle = await open(path, FLAGS).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const info = await handle.stat();
    if (!isSmallRegularFile(info, maxBytes)) return undefined;
    const buffer = Buffer.alloc(info.size + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return length > info.size ? undefined : buffer.toString('utf8', 0, length);
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

function isSmallRegularFile(info: Stats | undefined, maxBytes: number): boolean {
  return info?.isFile() === true && info.size <= maxBytes;
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
