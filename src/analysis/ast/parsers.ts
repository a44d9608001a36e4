/**
 * One tree-sitter parser per grammar, made on first use: a repository of
 * TypeScript loads no other grammar. Parsers are not shared between threads:
 * each worker thread loads this module anew. A grammar that fails to load is
 * remembered as failed (with its reason), so a run tries it once.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Parser from 'tree-sitter';
import { GrammarUnavailable } from '../errors.js';
import type { Language } from '../types.js';

export type SyntaxNode = Parser.SyntaxNode;
export type Tree = Parser.Tree;
export type GrammarLanguage = Parser.Language;

const require = createRequire(import.meta.url);

/** Where a grammar comes from: an npm package, and the export holding the grammar when the package has several. */
interface GrammarSource {
  package: string;
  export?: string;
  /**
   * The package's entry is an ES module with top-level await, which
   * require() refuses: its native binding is loaded directly (node-gyp-build
   * is how the package itself finds it).
   */
  nativeOnly?: boolean;
  /**
   * A copy of the package's native binding that ocvector ships (grammars/,
   * made by scripts/prebuild.mjs at `npm pack`), loaded when the package
   * cannot be: an optional dependency that npm left out. The package is
   * preferred when both are there.
   */
  shipped?: string;
}

/** Where the package's own grammars/ lies: beside dist/ (and beside src/ when run from the sources). */
const SHIPPED = fileURLToPath(new URL('../../../grammars/', import.meta.url));

const GRAMMARS: Partial<Record<Language, GrammarSource>> = {
  typescript: { package: 'tree-sitter-typescript', export: 'typescript' },
  tsx: { package: 'tree-sitter-typescript', export: 'tsx' },
  javascript: { package: 'tree-sitter-javascript' },
  python: { package: 'tree-sitter-python' },
  go: { package: 'tree-sitter-go' },
  rust: { package: 'tree-sitter-rust' },
  java: { package: 'tree-sitter-java' },
  c: { package: 'tree-sitter-c' },
  cpp: { package: 'tree-sitter-cpp' },
  csharp: { package: 'tree-sitter-c-sharp', nativeOnly: true },
  ruby: { package: 'tree-sitter-ruby' },
  php: { package: 'tree-sitter-php', export: 'php' },
  kotlin: { package: '@tree-sitter-grammars/tree-sitter-kotlin' },
  // Optional (its dependency tree-sitter-cli downloads a binary from GitHub
  // at install): the linux-x64 binding is shipped in grammars/ as well.
  swift: { package: 'tree-sitter-swift', shipped: join(SHIPPED, 'tree-sitter-swift') },
  scala: { package: 'tree-sitter-scala' },
  bash: { package: 'tree-sitter-bash' },
  lua: { package: '@tree-sitter-grammars/tree-sitter-lua', nativeOnly: true },
  elixir: { package: 'tree-sitter-elixir' },
  haskell: { package: 'tree-sitter-haskell' },
  zig: { package: '@tree-sitter-grammars/tree-sitter-zig' },
};

/**
 * For tests: load a grammar from elsewhere (a package that is not
 * installed, to see a load fail; a shipped copy in another place). Returns
 * what puts the original back.
 */
export function overrideGrammarPackage(language: Language, source: GrammarSource): () => void {
  const original = GRAMMARS[language];
  const set = (to: GrammarSource | undefined) => {
    if (to) GRAMMARS[language] = to;
    else delete GRAMMARS[language];
    loaded.delete(language);
  };
  set(source);
  return () => set(original);
}

/** The grammars this thread has loaded (or tried to), in order: what a run has paid for. */
export function loadedGrammars(): Language[] {
  return [...loaded.keys()];
}

function loadGrammar(language: Language): Parser.Language {
  const source = GRAMMARS[language];
  if (!source) throw new GrammarUnavailable(language, `no tree-sitter grammar for ${language}`);
  let module: unknown;
  try {
    module = source.nativeOnly
      ? loadNativeBinding(dirname(require.resolve(`${source.package}/package.json`)))
      : require(source.package);
  } catch (error) {
    if (!source.shipped || !existsSync(join(source.shipped, 'package.json'))) throw error;
    try {
      module = loadNativeBinding(source.shipped);
    } catch (copyError) {
      throw new GrammarUnavailable(
        language,
        `${firstLine(error)}; its copy in ${source.shipped}: ${firstLine(copyError)}`,
        source.package,
      );
    }
  }
  const grammar = (source.export ? (module as Record<string, unknown>)[source.export] : module) as
    | Parser.Language
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

type Loaded = { parser: Parser; grammar: Parser.Language } | { error: string; package: string | undefined };
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
        package: GRAMMARS[language]?.package,
      };
    }
    loaded.set(language, entry);
  }
  return entry;
}

/** The grammar of `language`, loading it on first use; throws GrammarUnavailable when it cannot be loaded. */
export function grammarOf(language: Language): Parser.Language {
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
