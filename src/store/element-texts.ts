/**
 * What both stores index of an element: its row's columns (the qualified
 * name, the short name searched for definitions) and its words for BM25
 * (names, signature, description, path, and its own code), made the same
 * way for SQLite's FTS5 (embedded/index-store.ts) and PostgreSQL's term rows
 * (postgres/run-writer.ts), so that both score alike.
 */
import { lexicalText } from '../text/terms.js';
import type { ElementDocument } from '../vector/document.js';
import { qualifiedName } from '../vector/document.js';

/** The words of one element, as FTS5 is given them (each part tokenized apart). */
export interface ElementWords {
  name: string;
  signature: string;
  description: string;
  path: string;
  /** The element's own code, when it has any (an element without has no row in the code table). */
  code?: string | undefined;
}

/** An element's qualified name and the short name a definition is found by. */
export function elementNames(document: ElementDocument): { name: string; shortName: string } {
  return { name: qualifiedName(document.element), shortName: document.element.name.toLowerCase() };
}

export function elementWords(document: ElementDocument, name: string, path: string): ElementWords {
  const e = document.element;
  return {
    name: lexicalText(name),
    signature: lexicalText(e.signature),
    description: lexicalText(e.description),
    path: lexicalText(path),
    code: document.code ? lexicalText(document.code) : undefined,
  };
}
