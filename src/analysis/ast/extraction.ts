/** What the language extractors share: the output they fill, and small text helpers. */
import type { CodeElement, DependencyType, ImportInfo } from '../types.js';
import type { SyntaxNode } from './parsers.js';

export type ElementDraft = CodeElement;

export interface Extraction {
  elements: ElementDraft[];
  imports: ImportInfo[];
  add(element: ElementDraft): void;
}

export function newExtraction(): Extraction {
  const elements: ElementDraft[] = [];
  return { elements, imports: [], add: (element) => void elements.push(element) };
}

export function addDependency(element: ElementDraft, type: DependencyType, target: string): void {
  if (!target || element.dependencies.some((d) => d.type === type && d.target === target)) return;
  element.dependencies.push({ type, target });
}

/** Whitespace runs folded to one space, a final `;` dropped, cut to `max` characters. */
export function collapse(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim().replace(/;$/, '');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The text of `node` up to where `end` starts (its body): a declaration's signature. */
export function signatureUntil(node: SyntaxNode, end: SyntaxNode | null | undefined): string {
  const text = end && end.startIndex >= node.startIndex ? node.text.slice(0, end.startIndex - node.startIndex) : node.text;
  // Drop what opens the body (`{`, or the `=` of `const f = …`); keep `=>`.
  return collapse(text.replace(/\s*(\{|(?<![=!<>])=)?\s*$/, ''), 300);
}
