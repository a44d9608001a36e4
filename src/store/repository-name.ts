/**
 * Repository names: what `--repo`, the tools' `repos` and the tokens of the
 * HTTP server name a repository by. Letters, digits, `.`, `_`, `-` and `/`
 * (`acme/web`), starting with a letter or digit: a name is shown, typed and
 * stored, and never needs quoting.
 */
import { basename } from 'node:path';
import { StoreError } from './errors.js';

export const REPOSITORY_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$';
const NAME = new RegExp(REPOSITORY_NAME_PATTERN);

/** Whether a name is one a repository can have. */
export function isRepositoryName(name: unknown): name is string {
  return typeof name === 'string' && NAME.test(name) && !name.split('/').includes('..');
}

/** What a directory is called when no name is given: its own name, with anything a name cannot hold made `-`. */
export function defaultRepositoryName(root: string): string {
  const name = basename(root)
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 100);
  return name || 'root';
}

/** Why a name cannot be a repository's, for an error message. */
export function badRepositoryName(name: unknown): string {
  const shown = typeof name === 'string' ? JSON.stringify(name.slice(0, 60)) : String(name);
  return `${shown} is not a repository name: use letters, digits, '.', '_', '-' and '/', starting with a letter or digit (at most 100 characters)`;
}

/** The error for a repository the index does not hold (naming no other: a caller may be allowed some only), and what that means. */
export function unknownRepository(name: unknown, consequence?: string): StoreError {
  const shown = typeof name === 'string' ? JSON.stringify(name.slice(0, 100)) : String(name);
  return new StoreError(
    `the index has no repository named ${shown}${consequence ? `: ${consequence}` : ''}`,
    'UNKNOWN_REPO',
  );
}
