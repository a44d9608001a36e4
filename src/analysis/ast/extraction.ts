/** What the language extractors share: the output they fill, and small text helpers. */
import { fold } from '../element.js';
import type { CodeElement, DependencyType, ImportInfo } from '../element-types.js';
import type { SyntaxNode } from './syntax-node.js';

export interface Extraction {
  elements: CodeElement[];
  imports: ImportInfo[];
  add(element: CodeElement): void;
}

export function newExtraction(): Extraction {
  const elements: CodeElement[] = [];
  return { elements, imports: [], add: (element) => void elements.push(element) };
}

export function addDependency(element: CodeElement, type: DependencyType, target: string): void {
  if (!target || element.dependencies.some((d) => d.type === type && d.target === target)) return;
  element.dependencies.push({ type, target });
}

/** Declaration text for display: folded, its final `;` dropped, cut to `max` characters. */
export function collapse(text: string, max: number): string {
  return fold(text.replace(/;\s*$/, ''), max);
}

/** The text of `node` up to where `end` starts (its body): a declaration's signature. */
export function signatureUntil(node: SyntaxNode, end: SyntaxNode | null | undefined): string {
  return signatureText(
    end && end.startIndex >= node.startIndex ? node.text.slice(0, end.startIndex - node.startIndex) : node.text,
  );
}

/** A declaration's head as a signature: what opens the body (`{`, or the `=` of `const f = …`) dropped, `=>` kept. */
export function signatureText(head: string): string {
  return collapse(head.replace(/\s*(\{|(?<![=!<>])=)?\s*$/, ''), 300);
}
