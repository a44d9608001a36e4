/**
 * One tree-sitter parser per grammar, made on first use. Parsers are not
 * shared between threads: each worker thread loads this module anew.
 */
import { createRequire } from 'node:module';
import Parser from 'tree-sitter';
import type { Language } from '../types.js';

export type SyntaxNode = Parser.SyntaxNode;
export type Tree = Parser.Tree;

const require = createRequire(import.meta.url);

function loadGrammar(language: Language): Parser.Language {
  switch (language) {
    case 'typescript':
      return (require('tree-sitter-typescript') as { typescript: Parser.Language }).typescript;
    case 'tsx':
      return (require('tree-sitter-typescript') as { tsx: Parser.Language }).tsx;
    case 'javascript':
      return require('tree-sitter-javascript') as Parser.Language;
    case 'python':
      return require('tree-sitter-python') as Parser.Language;
    default:
      throw new Error(`no tree-sitter grammar for ${language}`);
  }
}

const parsers = new Map<Language, Parser>();

export function parse(language: Language, text: string): Tree {
  let parser = parsers.get(language);
  if (!parser) {
    parser = new Parser();
    parser.setLanguage(loadGrammar(language));
    parsers.set(language, parser);
  }
  // The binding reads the string through a buffer of this many code units;
  // the default (32 KiB) makes large files parse in many small steps.
  return parser.parse(text, undefined, { bufferSize: Math.max(32 * 1024, text.length + 1) });
}
