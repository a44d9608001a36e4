/**
 * The plan of a run: which files to look at (the whole root, a
 * subdirectory of it, named paths, or git's changes), which indexed files
 * to remove, and which of those looked at can be passed over on their stat
 * alone. Scanning reports what it leaves out as it goes.
 */
import { relative, resolve } from 'node:path';
import { gitChangesSince } from '../files/git.js';
import { scanPaths, scanRoot, type ExcludedFile, type ScannedFile, type SkippedEntry } from '../files/scan.js';
import type { FileRow } from '../store/rows.js';
import type { IndexEvent } from './events.js';
import type { RunOptions } from './options.js';

export interface FilePlan {
  /** The files found to look at. */
  scanned: ScannedFile[];
  /** Indexed paths that are not there to index any more. */
  deleted: string[];
  /** Files left out by the ignore rules and the secret patterns. */
  excluded: number;
  /** Entries that are not regular files to read (links, FIFOs, unreadable directories). */
  skipped: number;
}

export interface PlanScope {
  root: string;
  /** The file or directory the indexer was given: a run without paths or `since` covers only it. */
  scope: string;
  emit: (event: IndexEvent) => void;
  signal?: AbortSignal;
}

export async function planRun(
  { root, scope, emit, signal }: PlanScope,
  run: RunOptions,
  known: Map<string, FileRow>,
): Promise<FilePlan> {
  let excluded = 0;
  let skipped = 0;
  const onExcluded = (file: ExcludedFile) => {
    excluded++;
    emit({ type: 'excluded', path: file.path, reason: file.reason });
  };
  // Links, FIFOs, unreadable directories, names that are not UTF-8: skipped, with the real reason.
  const onSkipped = (entry: SkippedEntry) => {
    skipped++;
    emit({ type: 'file-skipped', path: entry.path, reason: entry.reason, detail: entry.detail });
  };
  const scanOptions = { ...(signal ? { signal } : {}), onExcluded, onSkipped };
  if (run.paths || run.since) {
    const paths = [...(run.paths ?? [])];
    let deleted: string[] = [];
    if (run.since) {
      const changes = await gitChangesSince(root, run.since);
      paths.push(...changes.changed);
      deleted = changes.deleted;
    }
    const { files } = await scanPaths(root, paths, scanOptions);
    // Indexed paths that are not there to index any more: missing, deleted, or now excluded (newly ignored, a secret).
    const present = new Set(files.map((file) => file.path));
    const asked = new Set([...paths.map((path) => toRootRelative(root, path)), ...deleted]);
    return {
      scanned: files,
      deleted: [...asked].filter((path) => known.has(path) && !present.has(path)),
      excluded,
      skipped,
    };
  }
  // A subdirectory of the root: scanned with the root's ignore rules, and only it.
  const within = toRootRelative(root, scope);
  const inScope = (path: string) => within === '' || path === within || path.startsWith(`${within}/`);
  const scanned = (await scanRoot(root, scanOptions)).filter((file) => inScope(file.path));
  const seen = new Set(scanned.map((file) => file.path));
  return {
    scanned,
    deleted: [...known.keys()].filter((path) => inScope(path) && !seen.has(path)),
    excluded,
    skipped,
  };
}

/** The files to read: all but those whose stat matches the index. */
export function changedByStat(plan: FilePlan, known: Map<string, FileRow>): ScannedFile[] {
  return plan.scanned.filter((file) => !unchangedByStat(known.get(file.path), file));
}

/** Same size and mtime as indexed, and not a failure to retry: the file is not even read. */
function unchangedByStat(row: FileRow | undefined, file: ScannedFile): boolean {
  return row !== undefined && row.size === file.size && row.mtimeMs === file.mtimeMs && row.status !== 'failed';
}

function toRootRelative(root: string, path: string): string {
  return relative(root, resolve(root, path)).split('\\').join('/');
}
