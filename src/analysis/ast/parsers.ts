/**
 * One tree-sitter parser per grammar, made on first use: a repository of
 * TypeScript loads no other grammar. Parsers are not shared between threads:
 * each worker thread loads this module anew. A grammar that fails to load is
 * remembered as failed (with its reason), so a run tries it once.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Parser from 'tree-sitter';
import { GrammarUnavailable } from '../errors.js';
import { analysisOf, type GrammarSource } from '../languages.js';
import type { Language } from '../types.js';
import type { GrammarLanguage, Query, Tree } from './syntax-node.js';

const require = createRequire(import.meta.url);

/** Where the package's own grammars/ lies: beside dist/ (and beside src/ when run from the sources). */
const SHIPPED = fileURLToPath(new URL('../../../grammars/', import.meta.url));

/** Grammars that tests load from elsewhere (overrideGrammarPackage). */
const overrides = new Map<Language, GrammarSource>();

/** Where the grammar of `language` comes from; undefined for a language read as text. */
function grammarSource(language: Language): GrammarSource | undefined {
  const analysis = analysisOf(language);
  return overrides.get(language) ?? (analysis.kind === 'code' ? analysis.grammar : undefined);
}

/**
 * For tests: load a grammar from elsewhere (a package that is not
 * installed, to see a load fail; a shipped copy in another place). Returns
 * what puts the original back.
 */
export function overrideGrammarPackage(language: Language, source: GrammarSource): () => void {
  const original = overrides.get(language);
  const set = (to: GrammarSource | undefined) => {
    if (to) overrides.set(language, to);
    else overrides.delete(language);
    loaded.delete(language);
  };
  set(source);
  return () => set(original);
}

/** The grammars this thread has loaded (or tried to), in order: what a run has paid for. */
export function loadedGrammars(): Language[] {
  return [...loaded.keys()];
}

function loadGrammar(language: Language): GrammarLanguage {
  const source = grammarSource(language);
  if (!source) throw new GrammarUnavailable(language, `no tree-sitter grammar for ${language}`);
  const shipped = source.shipped === undefined ? undefined : resolve(SHIPPED, source.shipped);
  let module: unknown;
  try {
    module = source.nativeOnly
      ? loadNativeBinding(dirname(require.resolve(`${source.package}/package.json`)))
      : require(source.package);
  } catch (error) {
    if (!shipped || !existsSync(join(shipped, 'package.json'))) throw error;
    try {
      module = loadNativeBinding(shipped);
    } catch (copyError) {
      throw new GrammarUnavailable(
        language,
        `${firstLine(error)}; its copy in ${shipped}: ${firstLine(copyError)}`,
        source.package,
      );
    }
  }
  const grammar = (source.export ? (module as Record<string, unknown>)[source.export] : module) as
    | GrammarLanguage
    | undefined;
  if (!grammar)
    throw new GrammarUnavailable(
      language,
      `${source.package} has no grammar${source.export ? ` named ${source.export}` : ''}`,
      source.package,
    );
  return grammar;
}

/**
 * A grammar's native binding as its package's own Node binding loads it:
 * node-gyp-build finds the addon under `root` (build/, or
 * prebuilds/<platform>-<arch>/), and src/node-types.json, when there, gives
 * tree-sitter the node types (typed syntax nodes).
 */
function loadNativeBinding(root: string): unknown {
  const nodeGypBuild = createRequire(join(root, 'package.json'))('node-gyp-build') as (root: string) => {
    nodeTypeInfo?: unknown;
  };
  const binding = nodeGypBuild(root);
  const nodeTypes = join(root, 'src', 'node-types.json');
  if (binding.nodeTypeInfo === undefined && existsSync(nodeTypes)) binding.nodeTypeInfo = require(nodeTypes);
  return binding;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}

type Loaded = { parser: Parser; grammar: GrammarLanguage } | { error: string; package: string | undefined };
const loaded = new Map<Language, Loaded>();

function load(language: Language): Loaded {
  let entry = loaded.get(language);
  if (!entry) {
    try {
      const grammar = loadGrammar(language);
      const parser = new Parser();
      parser.setLanguage(grammar);
      entry = { parser, grammar };
    } catch (error) {
      entry = {
        error: error instanceof GrammarUnavailable ? error.reason : firstLine(error),
        package: grammarSource(language)?.package,
      };
    }
    loaded.set(language, entry);
  }
  return entry;
}

/** A query over a grammar: what extractors compile through (ParsedSource.compileQuery). */
export function compileQuery(grammar: GrammarLanguage, query: string): Query {
  return new Parser.Query(grammar, query);
}

/** The grammar of `language`, loading it on first use; throws GrammarUnavailable when it cannot be loaded. */
export function grammarOf(language: Language): GrammarLanguage {
  const entry = load(language);
  if ('error' in entry) throw new GrammarUnavailable(language, entry.error, entry.package);
  return entry.grammar;
}

export function parse(language: Language, text: string): Tree {
  const entry = load(language);
  if ('error' in entry) throw new GrammarUnavailable(language, entry.error, entry.package);
  // The binding reads the string through a buffer of this many code units;
  // the default (32 KiB) makes large files parse in many small steps.
  return entry.parser.parse(text, undefined, { bufferSize: Math.max(32 * 1024, text.length + 1) });
}
