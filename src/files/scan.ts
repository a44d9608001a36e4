/**
 * Lists the files of a root that an index should cover, with the size and
 * mtime that change detection compares first. Reads no file contents (only
 * ignore files). Symbolic links are not followed: they could leave the root
 * or loop. Every entry gets an outcome: listed, excluded on purpose, or
 * skipped with its real reason (a symbolic link and where it points, a FIFO
 * or device, a directory that cannot be read and why, a name that is not
 * UTF-8).
 */
import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import {
  defaultExcludeReason,
  isIgnored,
  readIgnoreLayer,
  toPosix,
  type ExcludeReason,
  type IgnoreLayer,
} from './rules.js';
import { PathOutsideRootError } from './errors.js';

export interface ScannedFile {
  /** Root-relative, '/'-separated. */
  path: string;
  absolutePath: string;
  size: number;
  mtimeMs: number;
}

export interface ExcludedFile {
  path: string;
  reason: ExcludeReason;
}

/** Why an entry that is not excluded cannot be indexed. */
export type ScanSkipReason = 'symlink' | 'special-file' | 'unreadable' | 'bad-name';

export interface SkippedEntry {
  /** Root-relative; a name that is not UTF-8 shows with replacement characters. */
  path: string;
  reason: ScanSkipReason;
  detail: string;
}

export interface ScanOptions {
  signal?: AbortSignal;
  /** Called for each file left out on purpose (secrets, excludes, ignore rules). */
  onExcluded?: (excluded: ExcludedFile) => void;
  /** Called for each entry that cannot be indexed: links, FIFOs and devices, unreadable directories, names that are not UTF-8. */
  onSkipped?: (skipped: SkippedEntry) => void;
}

/** Every indexable file under the root. */
export async function scanRoot(root: string, options: ScanOptions = {}): Promise<ScannedFile[]> {
  const files: ScannedFile[] = [];
  const rootLayer = await readIgnoreLayer(root, '');
  await walk(resolve(root), '', rootLayer ? [rootLayer] : [], files, options);
  files.sort(byPath);
  return files;
}

/** Root-relative paths in code-unit order (the same on every machine, unlike a locale's). */
export function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

async function walk(
  directory: string,
  base: string,
  layers: IgnoreLayer[],
  out: ScannedFile[],
  options: ScanOptions,
): Promise<void> {
  options.signal?.throwIfAborted();
  let entries: Dirent<Buffer>[];
  try {
    entries = await readdir(directory, { withFileTypes: true, encoding: 'buffer' });
  } catch (error) {
    // Removed meanwhile: nothing to say; anything else (EACCES, ELOOP, EIO) is the directory's outcome.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      options.onSkipped?.({
        path: base || '.',
        reason: 'unreadable',
        detail: `the directory cannot be read: ${describeFsError(error)}`,
      });
    return;
  }
  const subdirectories: Promise<void>[] = [];
  const statted: Promise<void>[] = [];
  for (const entry of entries) {
    const name = entry.name.toString('utf8');
    const path = base ? `${base}/${name}` : name;
    const isDirectory = entry.isDirectory();
    const reason =
      defaultExcludeReason(name, isDirectory) ?? (isIgnored(layers, path, isDirectory) ? 'ignored' : undefined);
    if (reason) {
      if (!isDirectory) options.onExcluded?.({ path, reason });
      continue;
    }
    if (!Buffer.from(name, 'utf8').equals(entry.name)) {
      options.onSkipped?.({
        path,
        reason: 'bad-name',
        detail: `the ${isDirectory ? 'directory' : 'file'} name is not valid UTF-8`,
      });
      continue;
    }
    const absolutePath = join(directory, name);
    if (!isDirectory && !entry.isFile()) {
      statted.push(
        describeSpecial(absolutePath, entry.isSymbolicLink()).then((skipped) =>
          options.onSkipped?.({ path, ...skipped }),
        ),
      );
      continue;
    }
    if (isDirectory) {
      subdirectories.push(
        readIgnoreLayer(absolutePath, path).then((layer) =>
          walk(absolutePath, path, layer ? [...layers, layer] : layers, out, options),
        ),
      );
    } else {
      statted.push(
        lstat(absolutePath).then(
          (info) => void out.push({ path, absolutePath, size: info.size, mtimeMs: info.mtimeMs }),
          () => {}, // removed between readdir and stat
        ),
      );
    }
  }
  await Promise.all(statted);
  await Promise.all(subdirectories);
}

/**
 * Screens given paths (a single-file index, a watch event, `--since`) with
 * the rules a full scan applies, including every ignore file from the root
 * down. Paths that do not exist come back in `missing`.
 */
export async function scanPaths(
  root: string,
  paths: readonly string[],
  options: ScanOptions = {},
): Promise<{ files: ScannedFile[]; missing: string[] }> {
  const absoluteRoot = resolve(root);
  const files: ScannedFile[] = [];
  const missing: string[] = [];
  const layerCache = new Map<string, Promise<IgnoreLayer | undefined>>();
  const layerFor = (dir: string, base: string) => {
    let layer = layerCache.get(base);
    if (!layer) layerCache.set(base, (layer = readIgnoreLayer(dir, base)));
    return layer;
  };
  for (const given of new Set(paths.map((p) => resolve(absoluteRoot, p)))) {
    const path = toPosix(relative(absoluteRoot, given));
    if (path === '' || path.startsWith('..'))
      throw new PathOutsideRootError(`${given} is outside the root ${absoluteRoot}`);
    const parts = path.split('/');
    const layers: IgnoreLayer[] = [];
    let excluded: ExcludeReason | undefined;
    for (let i = 0; i < parts.length && !excluded; i++) {
      const isDirectory = i < parts.length - 1;
      const prefix = parts.slice(0, i).join('/');
      const layer = await layerFor(join(absoluteRoot, ...parts.slice(0, i)), prefix);
      if (layer) layers.push(layer);
      const sub = parts.slice(0, i + 1).join('/');
      excluded =
        defaultExcludeReason(parts[i]!, isDirectory) ?? (isIgnored(layers, sub, isDirectory) ? 'ignored' : undefined);
    }
    if (excluded) {
      options.onExcluded?.({ path, reason: excluded });
      continue;
    }
    let info: Stats;
    try {
      info = await lstat(given);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR')
        missing.push(path);
      else options.onSkipped?.({ path, reason: 'unreadable', detail: describeFsError(error) });
      continue;
    }
    if (info.isFile()) files.push({ path, absolutePath: given, size: info.size, mtimeMs: info.mtimeMs });
    else if (!info.isDirectory())
      options.onSkipped?.({ path, ...(await describeSpecial(given, info.isSymbolicLink())) });
  }
  return { files, missing };
}

/** Why an entry that is neither a regular file nor a directory is skipped: what it is, and for a link, where it points. */
export async function describeSpecial(absolutePath: string, isLink: boolean): Promise<Omit<SkippedEntry, 'path'>> {
  if (!isLink) {
    const info = await lstat(absolutePath).catch(() => undefined);
    return { reason: 'special-file', detail: `${info ? kindOf(info) : 'not a regular file'}: nothing to index` };
  }
  try {
    const target = await stat(absolutePath);
    return { reason: 'symlink', detail: `a symbolic link to ${kindOf(target)}; links are not followed` };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { reason: 'symlink', detail: 'a symbolic link loop (ELOOP)' };
    if (code === 'ENOENT') return { reason: 'symlink', detail: 'a broken symbolic link (its target does not exist)' };
    return { reason: 'symlink', detail: `a symbolic link whose target cannot be read: ${describeFsError(error)}` };
  }
}

function kindOf(info: Stats): string {
  if (info.isFile()) return 'a file';
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  return 'a special file';
}

/** `EACCES: permission denied`: the code and what it means, without the path (the caller names it). */
export function describeFsError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  const meaning = e.message?.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '') ?? String(error);
  return e.code ? `${e.code}: ${meaning}` : meaning;
}

/** True when `path` is the root or inside it. */
export function isInside(root: string, path: string): boolean {
  const r = resolve(root);
  const p = resolve(path);
  return p === r || p.startsWith(r.endsWith(sep) ? r : r + sep);
}
