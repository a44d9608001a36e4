/** What every analyser shares: a new element with empty details, and text folded for display. */
import type { CodeElement } from './types.js';

export type ElementFields = Pick<CodeElement, 'type' | 'name' | 'parent' | 'access' | 'startLine' | 'endLine' | 'signature'> &
  Partial<CodeElement>;

export function newElement(fields: ElementFields): CodeElement {
  return { description: '', parameters: [], returnType: '', properties: [], dependencies: [], ...fields };
}

/** Whitespace runs folded to one space, cut to `max` characters with an ellipsis. */
export function fold(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
