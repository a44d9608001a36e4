/** What every analyser shares: a new element with empty details, and text folded for display. */
import type { CodeElement, CodeElementType, TextElementType } from './element-types.js';

export type ElementFields = Pick<
  CodeElement,
  'type' | 'name' | 'parent' | 'access' | 'startLine' | 'endLine' | 'signature'
> &
  Partial<CodeElement>;

export function newElement(fields: ElementFields): CodeElement {
  return { description: '', parameters: [], returnType: '', properties: [], dependencies: [], ...fields };
}

/** Whitespace runs folded to one space, cut to `max` characters with an ellipsis. */
export function fold(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A Record, so that a kind added to CodeElementType without an entry here fails to compile. */
const CODE_ELEMENT_KINDS: Readonly<Record<CodeElementType, true>> = {
  class: true,
  struct: true,
  interface: true,
  trait: true,
  enum: true,
  'type-alias': true,
  namespace: true,
  module: true,
  impl: true,
  function: true,
  method: true,
  constructor: true,
  macro: true,
  delegate: true,
  signal: true,
  property: true,
  field: true,
  constant: true,
};

/** Every code element type, as result-schema.json's `property-type` lists them. */
export const CODE_ELEMENT_TYPES = Object.keys(CODE_ELEMENT_KINDS) as readonly CodeElementType[];

/** Pieces of files that name nothing: Markdown sections, config documents, text windows, chunks of code outside elements. */
export const TEXT_ELEMENT_TYPES: readonly TextElementType[] = ['section', 'document', 'window', 'chunk'];

export function isCodeElementType(type: string): type is CodeElementType {
  return Object.hasOwn(CODE_ELEMENT_KINDS, type);
}
