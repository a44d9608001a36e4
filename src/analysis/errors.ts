/**
 * The analysis layer's errors. None stops an indexing run: a grammar that
 * cannot be loaded, or a query that does not fit its grammar, costs its
 * language the elements (its files become windows, with a warning); a model
 * that is not configured is refused before the run starts.
 */
import { OcvectorError } from '../errors.js';
import { unavailableGrammarMessage } from './ast/grammar-warning.js';
import type { Language } from './types.js';

/**
 * GRAMMAR_UNAVAILABLE: a language's tree-sitter grammar cannot be loaded
 * (always a {@link GrammarUnavailable}). BAD_GRAMMAR_QUERY: a language's
 * query captures an element kind there is no such thing as. NOT_CONFIGURED:
 * the options cannot make this enricher (an OpenAI-compatible one without a
 * model or a usable base URL).
 */
export type AnalysisErrorCode = 'GRAMMAR_UNAVAILABLE' | 'BAD_GRAMMAR_QUERY' | 'NOT_CONFIGURED';

export class AnalysisError<Code extends AnalysisErrorCode = AnalysisErrorCode> extends OcvectorError<Code> {
  override name = 'AnalysisError';
}

/** The grammar of a language cannot be loaded; its message is the warning each file of the language gets. */
export class GrammarUnavailable extends AnalysisError<'GRAMMAR_UNAVAILABLE'> {
  override name = 'GrammarUnavailable';

  constructor(
    readonly language: Language,
    /** Why, in one line. */
    readonly reason: string,
    /** The npm package the grammar comes from. */
    readonly grammarPackage?: string,
  ) {
    super(unavailableGrammarMessage({ language, package: grammarPackage }, reason), 'GRAMMAR_UNAVAILABLE');
  }
}
