/**
 * How a grammar that cannot be loaded is worded (the GrammarUnavailable
 * message, which becomes the warning of each file of its language), and how
 * a reader of those warnings finds the grammar and its package in them: the
 * CLIs print one line per such grammar, with the command that installs it.
 * Nothing here loads tree-sitter, so a CLI's main thread reads warnings
 * without loading a parser.
 */

export interface UnavailableGrammar {
  /** The language whose files lose their elements. */
  language: string;
  /** The npm package the grammar comes from, when the language has one. */
  package?: string | undefined;
}

export function unavailableGrammarMessage(grammar: UnavailableGrammar, reason: string): string {
  return `the ${grammar.language} grammar could not be loaded (${grammar.package ? `${grammar.package}: ` : ''}${reason})`;
}

const MESSAGE = /^the (\S+) grammar could not be loaded \((?:(@?[\w.-]+(?:\/[\w.-]+)?): )?/;

/** The grammar a warning says could not be loaded, or undefined for any other warning. */
export function unavailableGrammarIn(message: string): UnavailableGrammar | undefined {
  const match = MESSAGE.exec(message);
  return match ? { language: match[1]!, package: match[2] } : undefined;
}
