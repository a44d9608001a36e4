/**
 * What a scan leaves out, in three layers: secrets (never read, whatever an
 * ignore file says), default excludes (dependencies, build output, lock
 * files, binaries by extension), and the user's .gitignore/.ocvectorignore
 * files, which apply below the directory that holds them as git does.
 */
import { join, posix } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { INDEX_DIR_NAME } from './root.js';
import { readSmallFile } from './small-file.js';

/** Files that hold credentials. Matched on the file name; never opened. */
const SECRET_NAMES = [
  // dotenv files however they are suffixed or prefixed: .env, .env.local, .env-prod, .env_local,
  // prod.env. Not environment.ts or env.ts, which are code.
  /^\.env($|[._-])/i,
  /\.env$/i,
  // direnv's .envrc: its job is to export variables into the shell, the credentials among them,
  // and it is kept out of version control for that reason; what else it holds (layout, use) is
  // not worth searching.
  /^\.envrc($|\.)/i,
  /\.(pem|key|p12|pfx|jks|keystore|kdbx|ppk|gpg|asc)$/i,
  /^id_(rsa|dsa|ecdsa|ed25519)/i,
  /^credentials?(\.[a-z]+)?$/i,
  /^\.?(netrc|npmrc|pypirc|pgpass|htpasswd)$/i,
  /^secrets?\.(json|ya?ml|toml|txt|env)$/i,
  /^\.git-credentials$/i,
  /^\.vault-token$/i, // the Vault CLI's token, left in the home directory or a checkout by `vault login`
  /^terraform\.tfstate(\.backup)?$/i,
];

export function isSecretName(name: string): boolean {
  return SECRET_NAMES.some((pattern) => pattern.test(name));
}

/** Directories never worth descending into. */
const EXCLUDED_DIRECTORIES = new Set([
  '.git',
  '.hg',
  '.svn',
  INDEX_DIR_NAME,
  'node_modules',
  'bower_components',
  'jspm_packages',
  'dist',
  'build',
  'out',
  'coverage',
  '.nyc_output',
  '.next',
  '.nuxt',
  '.svelte-kit',
  '.turbo',
  '.cache',
  '.parcel-cache',
  '.venv',
  'venv',
  '__pycache__',
  '.mypy_cache',
  '.pytest_cache',
  '.tox',
  '.idea',
  '.vscode',
  'target',
  'vendor',
]);

const LOCK_FILES = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lockb',
  'bun.lock',
  'Cargo.lock',
  'poetry.lock',
  'Pipfile.lock',
  'composer.lock',
  'Gemfile.lock',
  'go.sum',
  'uv.lock',
]);

/** Extensions of files that are binary or generated; skipped without reading a byte. */
const SKIPPED_EXTENSIONS = new Set(
  (
    'png jpg jpeg gif bmp ico webp avif tiff psd svgz mp3 mp4 m4a wav ogg flac mov avi mkv webm pdf doc docx xls xlsx ' +
    'ppt pptx zip gz tgz bz2 xz zst 7z rar tar jar war ear class o a so dylib dll exe bin obj lib node wasm pyc pyo ' +
    'woff woff2 ttf otf eot sqlite sqlite3 db map tsbuildinfo lock ocvx faiss'
  ).split(' '),
);

export type ExcludeReason = 'secret' | 'default-exclude' | 'ignored';

export function defaultExcludeReason(name: string, isDirectory: boolean): ExcludeReason | undefined {
  if (isDirectory) return EXCLUDED_DIRECTORIES.has(name) ? 'default-exclude' : undefined;
  // A linked worktree's or a submodule's `.git` is a file: where its git directory is, nothing to search for.
  if (name === '.git') return 'default-exclude';
  if (isSecretName(name)) return 'secret';
  if (LOCK_FILES.has(name)) return 'default-exclude';
  if (/\.min\.(js|css|mjs)$|[.-]bundle\.js$|\.d\.ts\.map$/i.test(name)) return 'default-exclude';
  const dot = name.lastIndexOf('.');
  if (dot > 0 && SKIPPED_EXTENSIONS.has(name.slice(dot + 1).toLowerCase())) return 'default-exclude';
  return undefined;
}

/** The ignore files read in each directory, in order of precedence (later wins). */
const IGNORE_FILES = ['.gitignore', '.ocvectorignore'] as const;

/** Far more than any ignore file people write; what is larger was not written to be one. */
const IGNORE_FILE_BYTES = 1 << 20;

/** The ignore rules of one directory, applied to paths relative to it. */
export interface IgnoreLayer {
  /** Root-relative posix path of the directory ('' for the root). */
  base: string;
  rules: Ignore;
}

/** Reads a directory's .gitignore and .ocvectorignore; undefined when it has neither. */
export async function readIgnoreLayer(directory: string, base: string): Promise<IgnoreLayer | undefined> {
  let rules: Ignore | undefined;
  for (const name of IGNORE_FILES) {
    // As git (2.32 on) reads them: a link is not followed; nor is a FIFO, a device or an outsized file read.
    const text = await readSmallFile(join(directory, name), IGNORE_FILE_BYTES);
    if (text === undefined) continue;
    rules ??= ignore();
    rules.add(text);
  }
  return rules ? { base, rules } : undefined;
}

/** True when the layers (outermost first) ignore this root-relative path. */
export function isIgnored(layers: readonly IgnoreLayer[], path: string, isDirectory: boolean): boolean {
  let ignored = false;
  for (const layer of layers) {
    if (layer.base && !path.startsWith(`${layer.base}/`)) continue;
    const relative = layer.base ? path.slice(layer.base.length + 1) : path;
    const result = layer.rules.test(isDirectory ? `${relative}/` : relative);
    // A deeper file's negation (!pattern) can re-include what an outer one excluded.
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}

export function toPosix(path: string): string {
  return path.split(/[\\/]/).join(posix.sep);
}

/** A file's name without directories and extensions (`src/lib/json.go` -> json; a dot file keeps its name). */
export function fileStem(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.indexOf('.', 1);
  return dot > 0 ? base.slice(0, dot) : base;
}

/** A name with case and separators folded: `query_manager`, `QueryManager` and `query-manager` meet. */
export function normalizeStem(name: string): string {
  return name.toLowerCase().replace(/[_\-$]/g, '');
}
