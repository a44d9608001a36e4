/**
 * One document per element, in the original design's format:
 *
 *   {property-type}: {name}
 *   Access / File / Lines / Signature / Description / Parameters / Returns /
 *   Properties / Dependencies
 *   Code:
 *   {snippet}
 *
 * Lines with nothing to say are left out. The document is what an embedder
 * sees, except for `Lines:`: line numbers carry no meaning, and leaving them
 * out of the embedded text (and its hash) means an edit above an element
 * does not re-embed it.
 *
 * Beside it, each document carries the code its element holds in the
 * lexical index (all of its own lines, not the cut snippet). That text is
 * not a column of any row: the embedded store keeps it only compressed, per
 * file, for the lexical index's deletes (lexical_texts), and the shared
 * store keeps each file's text (deflated) for searches without a checkout.
 */
import { createHash } from 'node:crypto';
import type { CodeElement, CodeFile } from '../analysis/types.js';
import { coverFile } from './coverage.js';
import { cutSnippet, DEFAULT_SNIPPET_LIMITS, type SnippetLimits } from './snippet.js';

export interface ElementDocument {
  element: CodeElement;
  /** The full document, as shown to people and models. */
  text: string;
  /** What is embedded: the document without its `Lines:` line. */
  embeddingText: string;
  /** The element's own lines, for the lexical index (kept only as the lexical texts, compressed). */
  code: string;
  /**
   * sha256 of `embeddingText` and `code` (hex, 32 chars): the embedding
   * cache key, and what tells an unchanged element (which keeps its row,
   * vector and lexical entry) from a changed one.
   */
  hash: string;
}

export function qualifiedName(element: CodeElement): string {
  return element.parent ? `${element.parent}.${element.name}` : element.name;
}

/** The documents of a file's elements, then of the chunks that cover the code outside them. */
export function buildDocuments(
  file: CodeFile,
  lines: readonly string[],
  limits: SnippetLimits = DEFAULT_SNIPPET_LIMITS,
): ElementDocument[] {
  const firstMember = firstMemberLines(file.elements);
  return coverFile(file, lines).map(({ element, ownText }) => {
    const snippet = cutSnippet(element, lines, firstMember.get(qualifiedName(element)), limits);
    return buildDocument(element, file.path, snippet, ownText);
  });
}

export function buildDocument(element: CodeElement, path: string, snippet: string, code = ''): ElementDocument {
  const head = [`${element.type}: ${qualifiedName(element)}`];
  const body: string[] = [];
  head.push(`Access: ${element.access}`, `File: ${path}`);
  const lines = `Lines: ${element.startLine}-${element.endLine}`;
  if (element.signature) body.push(`Signature: ${oneLine(element.signature)}`);
  if (element.description) body.push(`Description: ${oneLine(element.description)}`);
  if (element.parameters.length > 0)
    body.push(`Parameters: ${element.parameters.map((p) => (p.type ? `${p.name}: ${p.type}` : p.name)).join(', ')}`);
  if (element.returnType) body.push(`Returns: ${element.returnType}`);
  if (element.properties.length > 0) {
    const properties = element.properties.map(
      (p) => `${p.name}: ${p.type || 'unknown'}${p.accessors.length ? ` [${p.accessors.join(', ')}]` : ''}`,
    );
    body.push(`Properties: ${properties.join(', ')}`);
  }
  if (element.dependencies.length > 0)
    body.push(`Dependencies: ${element.dependencies.map((d) => `${d.type}: ${d.target}`).join(', ')}`);
  if (snippet) body.push('Code:', snippet);
  const embeddingText = [...head, ...body].join('\n');
  const text = [...head, lines, ...body].join('\n');
  return { element, text, embeddingText, code, hash: documentHash(`${embeddingText}\0${code}`) };
}

export function documentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** For each container, the first line of its first function-like member. */
function firstMemberLines(elements: readonly CodeElement[]): Map<string, number> {
  const first = new Map<string, number>();
  for (const element of elements) {
    if (element.type !== 'method' && element.type !== 'constructor' && element.type !== 'function') continue;
    if (!element.parent) continue;
    const known = first.get(element.parent);
    if (known === undefined || element.startLine < known) first.set(element.parent, element.startLine);
  }
  return first;
}
