/**
 * What one language is, in one record: how its files are recognised (its
 * names) and how they are analysed. Each language is a file in languages/
 * and one line in language-registry.ts; the Language type, file detection,
 * search filters, the CLIs' choices and the agent tool's schema all read the
 * registry. A record is data: the generic extractor over a table is built by
 * languages.ts when a file is analysed, so that a search, which reads every
 * record to filter by language but parses nothing, loads no extractor
 * (TypeScript and Python name their own extractors by key:
 * own-extractors.ts).
 */
import type { GenericLanguage } from './ast/generic/spec.js';
import type { OwnExtractorName } from './own-extractors.js';

/** How a language's files are recognised, and what people (and models) call it. */
export interface LanguageNames {
  /** Lower-case, with the dot. */
  extensions: readonly string[];
  /** Whole file names (`Rakefile`, `.bashrc`), for files whose extension says nothing. */
  fileNames?: readonly string[];
  /** Interpreters named on a `#!` line, without version suffixes (`python3.12` → python). */
  interpreters?: readonly string[];
  /** Other names people and models use, lower case. */
  aliases?: readonly string[];
}

/** Where a grammar comes from: an npm package, and the export holding the grammar when the package has several. */
export interface GrammarSource {
  package: string;
  export?: string;
  /**
   * The package's entry is an ES module with top-level await, which
   * require() refuses: its native binding is loaded directly (node-gyp-build
   * is how the package itself finds it).
   */
  nativeOnly?: boolean;
  /**
   * A copy of the package's native binding that ocvector ships, a directory
   * of the package's grammars/ (made by scripts/prebuild.mjs at `npm pack`;
   * an absolute path is taken as it is), loaded when the package cannot be:
   * an optional dependency that npm left out. The package is preferred when
   * both are there.
   */
  shipped?: string;
}

/** A language read through its syntax tree: its grammar, its call nodes, and what extracts its elements. */
export type CodeRecord = {
  kind: 'code';
  grammar: GrammarSource;
  /**
   * The grammar's node types that are calls (ast/calls.ts reads their
   * callees; references mark those lines as calls). Only types the grammar
   * has: test/analysis/call-types.test.ts checks them against its
   * node-types.json. Empty where the grammar has no call node (Haskell
   * writes application as juxtaposition).
   */
  callTypes: readonly string[];
} & (
  | {
      /** The generic extractor's table (ast/generic/spec.ts): what most languages are. */
      table: GenericLanguage;
    }
  | {
      /**
       * An extractor of the language's own (TypeScript, Python), which reads more than a table
       * says, named by its key in own-extractors.ts: the record stays data, and a search, which
       * reads every record, loads no extractor.
       */
      extractor: OwnExtractorName;
    }
);

/**
 * A language read as text, with no grammar: Markdown by headings, a config
 * file as one document (with the top-level keys that `keys` reads), anything
 * else in windows of lines.
 */
export type TextRecord = { kind: 'markdown' } | { kind: 'config'; keys(text: string): string[] } | { kind: 'text' };

export interface LanguageRecord<Name extends string = string> extends LanguageNames {
  /** As the index, filters and users name it: lower case. */
  name: Name;
  analysis: CodeRecord | TextRecord;
}

/** A language's record, its name kept as a literal type: language-registry.ts derives the Language union from them. */
export function defineLanguage<Name extends string>(record: LanguageRecord<Name>): LanguageRecord<Name> {
  return record;
}
