/**
 * An index directory and its own files, touched without following a link. An index can
 * arrive with a clone: a link committed in its place (`.ocvector` itself, or
 * `index.db.checked` pointing at a user's ~/.bashrc) would otherwise have a run write,
 * chmod or create the file it points to. So the index directory and every file in it are
 * looked at with lstat and opened with O_NOFOLLOW, a file is created with O_EXCL (which
 * never follows a link, dangling or not), and a file is replaced by renaming a new one over
 * it (which replaces a link, never its target). Links above the index directory are the
 * user's own layout, and followed.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  type Stats,
  writeSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { StoreError } from '../errors.js';

/** O_NOFOLLOW where the platform has it (Windows has no such flag, and no links to speak of here). */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
/** The largest small file of ours (a lock, the last writer's record) read back: anything larger is not ours. */
const SMALL_FILE_MAX_BYTES = 64 * 1024;

/** The error for a link where an index keeps its directory or a file. */
export function linkRefused(path: string, directory: string): StoreError {
  if (path === directory)
    return new StoreError(
      `the index directory ${directory} is a symbolic link, which ocvector never writes or reads through (it may have come with a clone): remove the link and index again, or name the directory it points to (--db)`,
      'UNTRUSTED',
    );
  return new StoreError(
    `${path} in the index is a symbolic link, which ocvector never follows (it may have come with a clone): delete ${directory} and index again`,
    'UNTRUSTED',
  );
}

/** What is at `path` (lstat), undefined when nothing is; a link refused (StoreError UNTRUSTED). */
export function entryAt(path: string, directory: string): Stats | undefined {
  let info: Stats;
  try {
    info = lstatSync(path);
  } catch {
    return undefined;
  }
  if (info.isSymbolicLink()) throw linkRefused(path, directory);
  return info;
}

/** Whether anything, a link included, has this name: a link is never followed to answer. */
export function entryExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * A file's inode, size, modification and change times (ns), never through a link: what
 * changes when anything writes it. The change time cannot be set (no tar, cp or utime can),
 * and with the inode it cannot be foreseen by whoever made a file elsewhere: a record made
 * there never matches the copy here. The record of the database's last writer
 * (database.ts) and of the vectors file it wrote (vector-files.ts) are this. An older
 * version recorded three fields for a vectors file, which never match: its file is checked
 * once, then written again. Undefined when nothing is there.
 */
export function statIdentity(path: string): string | undefined {
  try {
    const stat = lstatSync(path, { bigint: true });
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
  } catch {
    return undefined;
  }
}

/**
 * Creates the index directory (0700), or makes an existing one private; a link in its
 * place is refused, never chmodded or filled. The directories above it are made as
 * needed, and may be links.
 */
export function makePrivateDirectory(directory: string): void {
  if (!entryAt(directory, directory)) mkdirSync(directory, { recursive: true, mode: 0o700 });
  let fd: number;
  try {
    fd = openSync(directory, constants.O_RDONLY | constants.O_DIRECTORY | NO_FOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw linkRefused(directory, directory);
    throw new StoreError(`cannot open the index directory ${directory}: ${(error as Error).message}`, 'IO');
  }
  try {
    // An existing directory (--db) is made private too: mkdir's mode applies only to one it creates.
    if ((fstatSync(fd).mode & 0o077) !== 0) fchmodSync(fd, 0o700);
  } finally {
    closeSync(fd);
  }
}

/** Creates a file that must not exist yet (0600); false when something has its name already. */
export function createExclusive(path: string, data: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, data);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Replaces a file with one holding `data` (0600): written under a new name and renamed over it. */
export function replaceFile(path: string, data: string): void {
  const temporary = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    createExclusive(temporary, data);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * A small file's text, when it is a regular file: never read through a link, never a FIFO
 * waited on, never more than a small file of ours holds. Undefined otherwise, or when absent.
 */
export function readSmallFile(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | NO_FOLLOW);
  } catch {
    return undefined;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.size > SMALL_FILE_MAX_BYTES) return undefined;
    const buffer = Buffer.alloc(info.size);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.toString('utf8', 0, read);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Creates a file (0600) for SQLite to open, or makes an existing one 0600; never through a link. */
export function touchPrivateFile(path: string, directory: string): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_NONBLOCK | NO_FOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw linkRefused(path, directory);
    throw error;
  }
  try {
    if (fstatSync(fd).isFile()) fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}
