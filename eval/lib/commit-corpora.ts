/**
 * The repositories the change-location (commit) sets come from, each
 * pinned at one snapshot, and where their git directories are found.
 * Fifteen repositories in thirteen languages, split once, before any of
 * the new ones was scored, into a development half (ranking changes are
 * tried on it) and a held-out half (only reported: a change is kept when
 * it holds there too). The first three were the only sets until
 * 2026-11-28 and were tuned on, so they sit in the development half.
 * Several are also among the public benchmark's repositories
 * (../shared/semble-benchmark/repos.json), whose questions are of another
 * kind (what code does, not where a change went).
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
  /** `development`: ranking changes are tuned on it; `held-out`: only reported. */
  half: CommitHalf;
}

export type CommitHalf = 'development' | 'held-out';

export const COMMIT_CORPORA: readonly CommitCorpus[] = [
  {
    name: 'starship',
    set: 'commits-starship',
    url: 'https://github.com/starship/starship',
    language: 'rust',
    pin: '6f33dcec91b758ccbae4ed850eaa6feabff798f9',
    size: 150,
    half: 'development',
  },
  {
    name: 'caddy',
    set: 'commits-caddy',
    url: 'https://github.com/caddyserver/caddy',
    language: 'go',
    pin: '0cf03d32f7d99cf160d5375e8a40fbe3d910d515',
    size: 150,
    half: 'development',
  },
  {
    name: 'poetry',
    set: 'commits-poetry',
    url: 'https://github.com/python-poetry/poetry',
    language: 'python',
    pin: 'f46702336862f30050d5c641d5ed6f7568ded793',
    size: 150,
    half: 'development',
  },
  {
    name: 'gson',
    set: 'commits-gson',
    url: 'https://github.com/google/gson',
    language: 'java',
    pin: '9835b6f90192f79cdf5300c528fc6212455fb6c1',
    size: 150,
    half: 'development',
  },
  {
    name: 'rails',
    set: 'commits-rails',
    url: 'https://github.com/rails/rails',
    language: 'ruby',
    pin: '2a2db1e8d6d104ee0611efcae7eb023af65cff34',
    size: 150,
    half: 'development',
  },
  {
    name: 'ktor',
    set: 'commits-ktor',
    url: 'https://github.com/ktorio/ktor',
    language: 'kotlin',
    pin: 'ef92e5537d7465961f1b3f2b21e217fc35bcfa1f',
    size: 150,
    half: 'development',
  },
  {
    name: 'phoenix',
    set: 'commits-phoenix',
    url: 'https://github.com/phoenixframework/phoenix',
    language: 'elixir',
    pin: '167c46950cf53aef363d672687cc653267c20aa6',
    size: 150,
    half: 'development',
  },
  {
    name: 'abseil-cpp',
    set: 'commits-abseil-cpp',
    url: 'https://github.com/abseil/abseil-cpp',
    language: 'cpp',
    pin: '926f1d05a4f85663e4ca057f70f1a7f0a7d6b762',
    size: 150,
    half: 'development',
  },
  {
    name: 'newtonsoft-json',
    set: 'commits-newtonsoft-json',
    url: 'https://github.com/JamesNK/Newtonsoft.Json',
    language: 'csharp',
    pin: '09bb545d72969ad7fb4ea07db0d5c34f4fc07877',
    size: 150,
    half: 'held-out',
  },
  {
    name: 'laravel-framework',
    set: 'commits-laravel-framework',
    url: 'https://github.com/laravel/framework',
    language: 'php',
    pin: 'bd71b45fbb7e672957bf6ff61baddefe15fbca6a',
    size: 150,
    half: 'held-out',
  },
  {
    name: 'vapor',
    set: 'commits-vapor',
    url: 'https://github.com/vapor/vapor',
    language: 'swift',
    pin: '13efaeefd52a965009fc6a69a96ba66e7f20402e',
    size: 150,
    half: 'held-out',
  },
  {
    name: 'cats',
    set: 'commits-cats',
    url: 'https://github.com/typelevel/cats',
    language: 'scala',
    pin: '7f2dce5162074c0a0ebc597b89b6cd25e5fe0536',
    size: 150,
    half: 'held-out',
  },
  {
    name: 'curl',
    set: 'commits-curl',
    url: 'https://github.com/curl/curl',
    language: 'c',
    pin: '5c61e168698a72b87437d58ed728bcdea6d5db42',
    size: 150,
    half: 'held-out',
  },
  {
    name: 'trpc',
    set: 'commits-trpc',
    url: 'https://github.com/trpc/trpc',
    language: 'typescript',
    pin: '340811ba5320637fbaf48fccf3dbfdd258bd34db',
    size: 150,
    half: 'held-out',
  },
  {
    name: 'kotlinx-coroutines',
    set: 'commits-kotlinx-coroutines',
    url: 'https://github.com/Kotlin/kotlinx.coroutines',
    language: 'kotlin',
    pin: '792ac67bdcd5592e5764753e623a9e8c6e4bcb29',
    size: 150,
    half: 'held-out',
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
