/**
 * The bearer tokens of the HTTP server, read from a file:
 *
 *   {"tokens": [{"name": "agents", "token": "…", "repos": ["*"]},
 *               {"name": "ci", "token": "…", "repos": ["web", "api"], "write": true}]}
 *
 * Each token has a name (for log lines), the repositories it may search
 * ("*" for all) and whether it may call reindex. The file is checked whole
 * before the server starts; a problem is one sentence naming the entry and
 * the field (never quoting the file: it holds tokens). A file other users
 * may read is refused unless allowed, and a key given twice is refused
 * rather than read as its last value. Tokens are kept only as SHA-256 digests and compared in
 * constant time, against every entry, whether one matches or not.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { badRepositoryName, isRepositoryName } from '../store/repository-name.js';
import type { McpAccess } from './access.js';
import { scanJson } from './json-scan.js';

/** Shorter tokens can be guessed; `openssl rand -hex 32` makes a good one. */
const MIN_TOKEN_LENGTH = 16;

const ENTRY_KEYS = ['name', 'token', 'repos', 'write'];

/** The tokens a server accepts, each with what it allows. */
export class TokenTable {
  readonly #entries: readonly { digest: Buffer; access: McpAccess }[];

  constructor(entries: readonly { token: string; access: McpAccess }[]) {
    this.#entries = entries.map(({ token, access }) => ({ digest: sha256(token), access }));
  }

  get size(): number {
    return this.#entries.length;
  }

  /** What the `Authorization` header's bearer token allows, or undefined when there is none or it matches no entry. */
  authenticate(header: string | undefined): McpAccess | undefined {
    const token = /^Bearer +(\S+) *$/i.exec(header ?? '')?.[1];
    if (token === undefined) return undefined;
    const digest = sha256(token);
    let found: McpAccess | undefined;
    for (const entry of this.#entries) if (timingSafeEqual(entry.digest, digest)) found = entry.access;
    return found;
  }
}

export interface ReadTokensOptions {
  /**
   * Serve from a file other users may read or change (default false: such a
   * file is refused, as ssh refuses an open private key; its tokens are
   * every team's keys to the index).
   */
  allowReadable?: boolean;
}

/**
 * The tokens file read and checked: the table, or the problem with the file,
 * in one sentence. A problem never quotes the file's text (it holds tokens):
 * a syntax error says where it is.
 */
export function readTokensFile(
  path: string,
  options: ReadTokensOptions = {},
): { tokens: TokenTable } | { problem: string } {
  let text: string;
  try {
    // Windows has no such mode bits.
    const { mode } = statSync(path);
    if (!options.allowReadable && process.platform !== 'win32' && (mode & 0o077) !== 0)
      return {
        problem: `the tokens file ${path} is open to other users (mode ${modeOf(mode)}): make it yours alone with chmod 600 ${path}, or pass --allow-readable-tokens`,
      };
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      problem: `cannot read the tokens file ${path}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    };
  }
  const scanned = scanJson(text);
  if (scanned?.kind === 'syntax')
    return {
      problem: `the tokens file ${path} is not valid JSON at line ${scanned.line}, column ${scanned.column}: ${scanned.what}`,
    };
  if (scanned?.kind === 'duplicate')
    return {
      problem: `the tokens file ${path}: ${placeOf(scanned.path)} has "${scanned.key}" twice (line ${scanned.line}): JSON would keep only the last, so give it once`,
    };
  return parseTokens(JSON.parse(text), `the tokens file ${path}`);
}

/** Where an object of the file is: `entry 2` for the second of "tokens", else its path. */
function placeOf(path: readonly (string | number)[]): string {
  if (path.length === 0) return 'the top-level object';
  if (path.length === 2 && path[0] === 'tokens' && typeof path[1] === 'number') return `entry ${path[1] + 1}`;
  return `the object at ${path.map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`)).join('')}`;
}

function modeOf(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0');
}

/** Tokens given as the file's JSON value; `source` names it in the problem. */
export function parseTokens(json: unknown, source = 'the tokens'): { tokens: TokenTable } | { problem: string } {
  const list = (json as { tokens?: unknown } | null)?.tokens;
  if (typeof json !== 'object' || json === null || Array.isArray(json) || !Array.isArray(list))
    return { problem: `${source} must be an object with a "tokens" list: {"tokens": [{"name", "token", "repos"}]}` };
  if (list.length === 0) return { problem: `${source} lists no tokens: every request would be refused` };
  const entries: { token: string; access: McpAccess }[] = [];
  const names = new Map<string, number>();
  const tokens = new Map<string, string>();
  for (const [index, raw] of list.entries()) {
    const checked = checkEntry(raw, `${source}: entry ${index + 1}`);
    if ('problem' in checked) return checked;
    const { token, access } = checked;
    const name = access.name!;
    if (names.has(name))
      return { problem: `${source}: entries ${names.get(name)! + 1} and ${index + 1} have the same name "${name}"` };
    names.set(name, index);
    const twin = tokens.get(token);
    if (twin !== undefined) return { problem: `${source}: "${twin}" and "${name}" have the same token` };
    tokens.set(token, name);
    entries.push(checked);
  }
  return { tokens: new TokenTable(entries) };
}

function checkEntry(raw: unknown, at: string): { token: string; access: McpAccess } | { problem: string } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { problem: `${at} must be an object with "name", "token" and "repos"` };
  const entry = raw as Record<string, unknown>;
  const unknown = Object.keys(entry).find((key) => !ENTRY_KEYS.includes(key));
  if (unknown !== undefined)
    return { problem: `${at} has an unknown field "${unknown}" (allowed: ${ENTRY_KEYS.join(', ')})` };
  const { name, token, repos, write } = entry;
  if (typeof name !== 'string' || name.trim() === '') return { problem: `${at}: "name" must be a non-empty string` };
  const which = `${at} ("${name}")`;
  if (token === undefined) return { problem: `${which} has no "token"` };
  if (typeof token !== 'string') return { problem: `${which}: "token" must be a string` };
  if (token === '') return { problem: `${which}: the token is empty` };
  if (!/^[\x21-\x7e]+$/.test(token))
    return { problem: `${which}: the token must be printable ASCII with no spaces (it travels in a header)` };
  if (token.length < MIN_TOKEN_LENGTH)
    return {
      problem: `${which}: the token is ${token.length} characters; use at least ${MIN_TOKEN_LENGTH} (openssl rand -hex 32 makes one)`,
    };
  if (!Array.isArray(repos) || repos.length === 0)
    return { problem: `${which}: "repos" must be a non-empty list of repository names, or ["*"] for all` };
  if (repos.includes('*') && repos.length > 1)
    return { problem: `${which}: "repos" is either ["*"] (every repository) or a list of names, not both` };
  const bad = repos.find((repo) => repo !== '*' && !isRepositoryName(repo));
  if (bad !== undefined) return { problem: `${which}: "repos": ${badRepositoryName(bad)}` };
  if (write !== undefined && typeof write !== 'boolean') return { problem: `${which}: "write" must be true or false` };
  return {
    token,
    access: { name, repos: repos.includes('*') ? '*' : [...new Set(repos as string[])], write: write === true },
  };
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
