/**
 * A work tree moved from commit to commit out of a bare git directory, as a
 * user's checkout moves: only the files that differ between the two trees
 * are written or removed, so the others keep their mtime and an incremental
 * index run reads only what changed.
 *
 * The tree at a commit is its `git ls-tree -r`: regular files (written),
 * symbolic links (made as links, never followed) and submodules (left out: a
 * checkout without `--recurse-submodules` has an empty folder there). Blobs
 * the git directory lacks (the mirrors leave out blobs of 4 MiB and more)
 * are skipped and reported; the file is then absent from the tree.
 *
 * Which commit the tree is at is recorded beside it (`<dir>.commit`), and
 * removed while a move is under way: a tree found without it is laid out
 * again from nothing.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, sep } from 'node:path';

export interface TreeEntry {
  mode: string;
  blob: string;
}

export interface MoveReport {
  commit: string;
  /** Laid out from nothing (no tree, or none recorded) rather than moved. */
  fresh: boolean;
  written: number;
  removed: number;
  /** Paths whose blob the git directory does not hold: absent from the tree. */
  missing: string[];
  ms: number;
}

function git(gitDir: string, args: readonly string[], input?: string): Buffer {
  const result = spawnSync('git', ['--git-dir', gitDir, '-c', 'core.quotePath=false', ...args], {
    input,
    maxBuffer: 2 ** 31,
  });
  if (result.error) throw result.error;
  if (result.status !== 0)
    throw new Error(`git ${args.slice(0, 2).join(' ')} in ${gitDir}: ${result.stderr.toString('utf8').trim()}`);
  return result.stdout;
}

/** Every file and link of a commit's tree (submodules left out), by root-relative path. */
export function treeAt(gitDir: string, commit: string): Map<string, TreeEntry> {
  const entries = new Map<string, TreeEntry>();
  for (const line of git(gitDir, ['ls-tree', '-r', '-z', commit]).toString('utf8').split('\0')) {
    if (!line) continue;
    const tab = line.indexOf('\t');
    const [mode, type, blob] = line.slice(0, tab).split(' ') as [string, string, string];
    if (type === 'blob') entries.set(line.slice(tab + 1), { mode, blob });
  }
  return entries;
}

/** Commit times (seconds since the epoch), one `git show` for all of them. */
export function commitTimes(gitDir: string, commits: readonly string[]): Map<string, number> {
  const times = new Map<string, number>();
  if (commits.length === 0) return times;
  const text = git(gitDir, ['show', '-s', '--no-walk=unsorted', '--format=%H %ct', ...new Set(commits)]).toString(
    'utf8',
  );
  for (const line of text.split('\n')) {
    const [sha, time] = line.trim().split(' ');
    if (sha && time) times.set(sha, Number(time));
  }
  return times;
}

/** The contents of blobs by id (`git cat-file --batch`); ids the git directory lacks are left out. */
export function readBlobs(gitDir: string, blobs: readonly string[]): Map<string, Buffer> {
  const contents = new Map<string, Buffer>();
  const unique = [...new Set(blobs)];
  if (unique.length === 0) return contents;
  const out = git(gitDir, ['cat-file', '--batch'], unique.map((id) => `${id}\n`).join(''));
  let at = 0;
  while (at < out.length) {
    const end = out.indexOf(0x0a, at);
    const header = out.subarray(at, end).toString('utf8');
    const [id, type, size] = header.split(' ');
    if (type === 'missing' || size === undefined) {
      at = end + 1;
      continue;
    }
    const length = Number(size);
    contents.set(id!, out.subarray(end + 1, end + 1 + length));
    at = end + 1 + length + 1; // the content, then a newline
  }
  return contents;
}

export class WorkTree {
  readonly #gitDir: string;
  readonly dir: string;
  readonly #stateFile: string;
  #entries: Map<string, TreeEntry> | undefined;

  constructor(gitDir: string, dir: string) {
    this.#gitDir = gitDir;
    this.dir = dir;
    this.#stateFile = `${dir}.commit`;
  }

  /** The commit the tree is at, when a complete move recorded it. */
  get commit(): string | undefined {
    if (!existsSync(this.#stateFile) || !existsSync(this.dir)) return undefined;
    return readFileSync(this.#stateFile, 'utf8').trim() || undefined;
  }

  /** The tree's entries at its current commit (read from git, not from the disk). */
  get entries(): Map<string, TreeEntry> {
    if (this.#entries) return this.#entries;
    const commit = this.commit;
    if (!commit) throw new Error(`${this.dir} is at no recorded commit`);
    return (this.#entries = treeAt(this.#gitDir, commit));
  }

  /** Brings the tree to `commit`: writes what differs, removes what the commit lacks. */
  moveTo(commit: string): MoveReport {
    const started = performance.now();
    const from = this.commit;
    const target = treeAt(this.#gitDir, commit);
    const previous = from ? (this.#entries ?? treeAt(this.#gitDir, from)) : new Map<string, TreeEntry>();
    rmSync(this.#stateFile, { force: true });
    if (!from) {
      rmSync(this.dir, { recursive: true, force: true });
      mkdirSync(this.dir, { recursive: true });
    }
    let removed = 0;
    for (const [path, entry] of previous) {
      const next = target.get(path);
      if (next && next.mode === entry.mode && next.blob === entry.blob) continue;
      rmSync(join(this.dir, path), { force: true });
      if (!next) {
        removed++;
        this.#pruneEmptyParents(path);
      }
    }
    const wanted = [...target].filter(([path, entry]) => {
      const before = previous.get(path);
      return !before || before.mode !== entry.mode || before.blob !== entry.blob;
    });
    const contents = readBlobs(
      this.#gitDir,
      wanted.map(([, entry]) => entry.blob),
    );
    const missing: string[] = [];
    for (const [path, entry] of wanted) {
      const bytes = contents.get(entry.blob);
      if (!bytes) {
        missing.push(path);
        continue;
      }
      const file = join(this.dir, path);
      mkdirSync(dirname(file), { recursive: true });
      if (entry.mode === '120000') symlinkSync(bytes.toString('utf8'), file);
      else writeFileSync(file, bytes, { mode: entry.mode === '100755' ? 0o755 : 0o644 });
    }
    // Missing blobs stay out of the recorded tree, so a later move writes them if they appear.
    for (const path of missing) target.delete(path);
    writeFileSync(this.#stateFile, `${commit}\n`);
    this.#entries = target;
    return {
      commit,
      fresh: !from,
      written: wanted.length - missing.length,
      removed,
      missing,
      ms: performance.now() - started,
    };
  }

  /** Removes the folders a deletion left empty, up to the tree's root. */
  #pruneEmptyParents(path: string): void {
    let folder = dirname(join(this.dir, path));
    while (folder.startsWith(this.dir + sep) && existsSync(folder) && readdirSync(folder).length === 0) {
      rmdirSync(folder);
      folder = dirname(folder);
    }
  }
}
