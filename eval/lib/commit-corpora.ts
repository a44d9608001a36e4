/**
 * The repositories the change-location (commit) sets come from, each
 * pinned at one snapshot, and where their git directories are found.
 * Three languages, none of them among the public benchmark's repositories
 * (the tuning split, ../shared/semble-benchmark/repos.json).
 *
 * Their histories are not in this repository: each is a git directory
 * (`git clone --bare <url> <dir>/<name>`) under the commit corpora folder,
 * `--commits-corpora <dir>`, else $OCVECTOR_COMMIT_CORPORA, else
 * `../corpora/commits` beside this checkout.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT, SETS_DIR } from './corpora.js';

export interface CommitCorpus {
  /** The folder name under the commit corpora folder. */
  name: string;
  /** The set's name under eval/sets/. */
  set: string;
  url: string;
  language: string;
  /** The snapshot: every answer is a file at this commit, and it is what gets indexed. */
  pin: string;
  /** Queries wanted: the newest commits that pass the rules, up to this many. */
  size: number;
}

export const COMMIT_CORPORA: readonly CommitCorpus[] = [
  {
    name: 'starship',
    set: 'commits-starship',
    url: 'https://github.com/starship/starship',
    language: 'rust',
    pin: '6f33dcec91b758ccbae4ed850eaa6feabff798f9',
    size: 150,
  },
  {
    name: 'caddy',
    set: 'commits-caddy',
    url: 'https://github.com/caddyserver/caddy',
    language: 'go',
    pin: '0cf03d32f7d99cf160d5375e8a40fbe3d910d515',
    size: 150,
  },
  {
    name: 'poetry',
    set: 'commits-poetry',
    url: 'https://github.com/python-poetry/poetry',
    language: 'python',
    pin: 'f46702336862f30050d5c641d5ed6f7568ded793',
    size: 150,
  },
];

/** The commit corpora folder: the option, else $OCVECTOR_COMMIT_CORPORA, else ../corpora/commits beside the checkout. */
export function commitCorporaDir(option?: string): string {
  return resolve(option ?? process.env.OCVECTOR_COMMIT_CORPORA ?? join(ROOT, '..', 'corpora', 'commits'));
}

/** A repository's git directory under the folder (a bare clone, or a clone's `.git`), or undefined when absent. */
export function gitDirOf(corporaDir: string, name: string): string | undefined {
  for (const candidate of [join(corporaDir, name, '.git'), join(corporaDir, name), join(corporaDir, `${name}.git`)])
    if (existsSync(join(candidate, 'HEAD')) && existsSync(join(candidate, 'objects'))) return candidate;
  return undefined;
}

/** What eval/sets/<set>/source.json records of a commit set. */
export interface CommitSetSource {
  kind: 'commits';
  corpus: string;
  repository: string;
  language: string;
  commit: string;
  commit_date: string;
  queries: number;
  prefixed: number;
  considered: number;
  left_out: Record<string, number>;
}

/** The set's source.json when it is a commit set, else undefined (a doc-comment set). */
export function commitSetSource(set: string): CommitSetSource | undefined {
  const file = join(SETS_DIR, set, 'source.json');
  if (!existsSync(file)) return undefined;
  const source = JSON.parse(readFileSync(file, 'utf8')) as Partial<CommitSetSource>;
  return source.kind === 'commits' ? (source as CommitSetSource) : undefined;
}

/** The variant files of a commit set: the subjects as written, and without their prefixes. */
export const COMMIT_SET_FILES = { asWritten: 'queries.jsonl', noPrefix: 'queries-no-prefix.jsonl' } as const;
