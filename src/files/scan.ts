/**
 * Lists the files of a root that an index should cover, with the size and
 * mtime that change detection compares first. Reads no file contents (only
 * ignore files). Symbolic links are not followed: they could leave the root
 * or loop.
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { defaultExcludeReason, isIgnored, readIgnoreLayer, toPosix, type ExcludeReason, type IgnoreLayer } from './rules.js';
import { OcvectorError } from '../errors.js';

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

export interface ScanOptions {
  signal?: AbortSignal;
  /** Called for each file left out on purpose (secrets, excludes, ignore rules). */
  onExcluded?: (excluded: ExcludedFile) => void;
}

/** Every indexable file under the root. */
export async function scanRoot(root: string, options: ScanOptions = {}): Promise<ScannedFile[]> {
  const files: ScannedFile[] = [];
  const rootLayer = await readIgnoreLayer(root, '');
  await walk(resolve(root), '', rootLayer ? [rootLayer] : [], files, options);
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return files;
}

async function walk(directory: string, base: string, layers: IgnoreLayer[], out: ScannedFile[], options: ScanOptions): Promise<void> {
  options.signal?.throwIfAborted();
  let entries: Dirent[];
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch {
    return; // unreadable directory (permissions, removed meanwhile): nothing to index there
  }
  const subdirectories: Promise<void>[] = [];
  const statted: Promise<void>[] = [];
  for (const entry of entries) {
    const path = base ? `${base}/${entry.name}` : entry.name;
    const isDirectory = entry.isDirectory();
    if (!isDirectory && !entry.isFile()) continue; // links, sockets, devices
    const reason = defaultExcludeReason(entry.name, isDirectory) ?? (isIgnored(layers, path, isDirectory) ? 'ignored' : undefined);
    if (reason) {
      if (!isDirectory) options.onExcluded?.({ path, reason });
      continue;
    }
    const absolutePath = join(directory, entry.name);
    if (isDirectory) {
      subdirectories.push(
        readIgnoreLayer(absolutePath, path).then((layer) => walk(absolutePath, path, layer ? [...layers, layer] : layers, out, options)),
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
    if (path === '' || path.startsWith('..')) throw new OcvectorError(`${given} is outside the root ${absoluteRoot}`, 'OUTSIDE_ROOT');
    const parts = path.split('/');
    const layers: IgnoreLayer[] = [];
    let excluded: ExcludeReason | undefined;
    for (let i = 0; i < parts.length && !excluded; i++) {
      const isDirectory = i < parts.length - 1;
      const prefix = parts.slice(0, i).join('/');
      const layer = await layerFor(join(absoluteRoot, ...parts.slice(0, i)), prefix);
      if (layer) layers.push(layer);
      const sub = parts.slice(0, i + 1).join('/');
      excluded = defaultExcludeReason(parts[i]!, isDirectory) ?? (isIgnored(layers, sub, isDirectory) ? 'ignored' : undefined);
    }
    if (excluded) {
      options.onExcluded?.({ path, reason: excluded });
      continue;
    }
    try {
      const info = await lstat(given);
      if (info.isFile()) files.push({ path, absolutePath: given, size: info.size, mtimeMs: info.mtimeMs });
      else if (!info.isDirectory()) missing.push(path);
    } catch {
      missing.push(path);
    }
  }
  return { files, missing };
}

/** True when `path` is the root or inside it. */
export function isInside(root: string, path: string): boolean {
  const r = resolve(root);
  const p = resolve(path);
  return p === r || p.startsWith(r.endsWith(sep) ? r : r + sep);
}
