/**
 * Copies of a source file that a JavaScript package ships beside it: the
 * built JavaScript (`.js`, `.mjs`, `.cjs`) of a TypeScript source and the
 * declarations (`.d.ts`, `.d.mts`, `.d.cts`) of either. zod ships each
 * module five times (`src/v4/core/parse.ts`, `v4/core/parse.js`, `.cjs`,
 * `.d.ts`, `.d.cts`), so each element came back five times in a top 10.
 * An element's copies are the elements of the same name in files of the
 * same module path: the path less its extension and its build or source
 * directories (`src/`, `dist/`, `lib/`, `esm/`, `cjs/`, `types/`, …). Two
 * sources of one format (`node/x.ts`, `browser/x.ts`) are not copies.
 */
import { posix } from 'node:path';

/** How close to the source a copy is: TypeScript, then JavaScript, then declarations (which say the least). */
export type CopyRank = 0 | 1 | 2;

const DECLARATION = /\.d\.[mc]?ts$/;
const TYPESCRIPT = /\.[mc]?tsx?$/;
const JAVASCRIPT = /\.[mc]?jsx?$/;
/** Directories a package's sources and builds sit under: not part of the module's path. */
const BUILD_ROOTS = new Set(
  'src source sources lib libs dist build built out output esm cjs es es5 es6 es2015 es2020 mjs umd node browser types typings dts'.split(
    ' ',
  ),
);

/** The file's place among copies of one module, or undefined for a file that is not JavaScript or TypeScript. */
export function copyRank(path: string): CopyRank | undefined {
  if (DECLARATION.test(path)) return 2;
  if (TYPESCRIPT.test(path)) return 0;
  if (JAVASCRIPT.test(path)) return 1;
  return undefined;
}

/**
 * The module a JavaScript or TypeScript file is a copy of: its path less the extension and the
 * build or source directories anywhere in it (`src/v4/core/parse.ts` and `v4/core/parse.d.cts`:
 * `v4/core/parse`; `packages/a/src/x.ts` and `packages/a/dist/esm/x.js`: `packages/a/x`).
 */
export function modulePath(path: string): string {
  const segments = path
    .replace(DECLARATION, '')
    .replace(/\.[mc]?[jt]sx?$/, '')
    .split('/');
  const name = segments.pop()!;
  return [...segments.filter((segment) => !BUILD_ROOTS.has(segment.toLowerCase())), name].join('/');
}

/** The extension that tells a copy's format (`.d.cts`, `.cjs`, `.ts`). */
export function copyFormat(path: string): string {
  return DECLARATION.exec(path)?.[0] ?? posix.extname(path);
}

/** The key an element shares with its copies; undefined for an element of a file that has none. */
export function copyKey(path: string, name: string): string | undefined {
  return copyRank(path) === undefined ? undefined : `${modulePath(path)}\0${name}`;
}

/**
 * The module each file ships a copy of, for the files among `paths` that are copies of one
 * another (`src/x.ts`, `x.js`, `x.d.ts`): such files hold the same text, so they are one file's
 * evidence, to be counted once. A module with two files of one format (`node/x.ts` and
 * `browser/x.ts`) has two sources, and each of its files stays a file of its own.
 */
export function sharedModules(paths: Iterable<string>): Map<string, string> {
  const filesOf = new Map<string, Set<string>>();
  for (const path of paths) {
    if (copyRank(path) === undefined) continue;
    const module = modulePath(path);
    const files = filesOf.get(module);
    if (files) files.add(path);
    else filesOf.set(module, new Set([path]));
  }
  const moduleOf = new Map<string, string>();
  for (const [module, files] of filesOf) {
    if (files.size < 2 || new Set([...files].map(copyFormat)).size < files.size) continue;
    for (const path of files) moduleOf.set(path, module);
  }
  return moduleOf;
}

/**
 * How many files the repositories hold for each module they would hold without shipped copies
 * (1 when no file is a copy of another): their files over their files less copies plus modules.
 */
export function filesPerModule(pathsByRepository: Iterable<readonly string[]>): number {
  let files = 0;
  let withoutCopies = 0;
  for (const paths of pathsByRepository) {
    const moduleOf = sharedModules(paths);
    files += paths.length;
    withoutCopies += paths.length - moduleOf.size + new Set(moduleOf.values()).size;
  }
  return withoutCopies > 0 ? files / withoutCopies : 1;
}

/**
 * The start of a candidate list fetched `filesPerModule` times deeper in a package of copies,
 * as long as the list would be without them: its first `length / filesPerModule` elements,
 * an element's copies counting once (each copy kept). Hits whose row is gone (filtered out)
 * are kept and not counted, as the ranking skips them.
 */
export function firstInModules<Hit extends { id: number }>(
  hits: readonly Hit[],
  rows: ReadonlyMap<number, { path: string; name: string }>,
  filesPerModule: number,
): readonly Hit[] {
  if (filesPerModule <= 1) return hits;
  const wanted = Math.ceil(hits.length / filesPerModule);
  const seen = new Set<string | number>();
  for (let i = 0; i < hits.length; i++) {
    const row = rows.get(hits[i]!.id);
    if (!row) continue;
    const key = copyKey(row.path, row.name) ?? hits[i]!.id;
    if (seen.has(key)) continue;
    if (seen.size === wanted) return hits.slice(0, i);
    seen.add(key);
  }
  return hits;
}
