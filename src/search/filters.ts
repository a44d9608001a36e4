/**
 * Search filters: a path prefix or glob, languages, element types. Each is
 * applied twice, on purpose: in the store for the lexical side (so that
 * BM25's top hits are all eligible) and as a predicate on vector hits (a
 * k-NN knows nothing but ids).
 */

import { CODE_ELEMENT_TYPES, TEXT_ELEMENT_TYPES } from '../analysis/element.js';
import { canonicalLanguage, LANGUAGE_ALIASES, LANGUAGES } from '../analysis/language-names.js';
import type { ElementType } from '../analysis/types.js';
import type { FilterConditions } from '../store/reads.js';
import { compileGlob } from './glob.js';

/** Every language the index records, and what people (and models) type for them: see analysis/languages.ts. */
export { canonicalLanguage, LANGUAGE_ALIASES, LANGUAGES };

/** Every element type the index records: code elements, then the pieces of other files. */
export const ELEMENT_TYPES: readonly ElementType[] = [...CODE_ELEMENT_TYPES, ...TEXT_ELEMENT_TYPES];

export interface SearchFilters {
  /**
   * A root-relative path prefix (`src/store`) or a glob (`src/**\/*.ts`, `*.py`); a glob also
   * matches the path it spells. The CLIs and the agent tool resolve what a user gives
   * (relative to the current directory, absolute) to this form first: search/path-filter.ts.
   */
  path?: string;
  /** Languages as the index names them (see LANGUAGES): typescript, python, go, rust, ..., markdown, text. */
  language?: string | readonly string[];
  /** Element types: function, method, class, interface, ... */
  type?: string | readonly string[];
}

/** Filters ready for both sides: the conditions the store turns into its SQL, and a predicate on rows. */
export interface CompiledFilters {
  conditions: FilterConditions;
  matches(row: { path: string; language: string | null; type: string }): boolean;
  active: boolean;
}

export function compileFilters(filters: SearchFilters): CompiledFilters {
  const conditions: FilterConditions = {};
  const checks: ((row: { path: string; language: string | null; type: string }) => boolean)[] = [];

  const path = normalizePathFilter(filters.path);
  if (path !== undefined) {
    if (/[*?[]/.test(path)) {
      const glob = compileGlob(path);
      // The literal part before the first wildcard narrows the SQL side.
      const literal = path.slice(0, path.search(/[*?[]/));
      if (literal) conditions.pathStartsWith = literal;
      // A path as printed works as a filter, brackets and all (`app/[slug]/page.tsx`): spelled out, it is itself too.
      const itself = underPath(path.endsWith('/') ? path.slice(0, -1) : path);
      checks.push((row) => glob.test(row.path) || itself(row.path));
    } else {
      conditions.under = path;
      const under = underPath(path);
      checks.push((row) => under(row.path));
    }
  }
  const languages = list(filters.language);
  if (languages) {
    conditions.languages = languages;
    const set = new Set(languages);
    checks.push((row) => row.language !== null && set.has(row.language));
  }
  const types = list(filters.type);
  if (types) {
    conditions.types = types;
    const set = new Set(types);
    checks.push((row) => set.has(row.type));
  }
  return {
    conditions,
    matches: (row) => checks.every((check) => check(row)),
    active: checks.length > 0,
  };
}

/** Whether a path is `path` itself or lies under it. */
function underPath(path: string): (candidate: string) => boolean {
  const prefix = `${path}/`;
  return (candidate) => candidate === path || candidate.startsWith(prefix);
}

/** `./src/` -> `src`; the root itself (`.`, `/`, empty) is no filter. */
function normalizePathFilter(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  let p = path
    .trim()
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '')
    .replace(/\/{2,}/g, '/');
  if (p === '.' || p === '/' || p === '') return undefined;
  if (p.endsWith('/') && !/[*?[]/.test(p)) p = p.slice(0, -1);
  return p;
}

function list(value: string | readonly string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const items = (typeof value === 'string' ? value.split(',') : [...value])
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);
  return items.length > 0 ? items : undefined;
}
