/**
 * Doc comments in any language: the run of comments directly above a
 * definition (`///`, `//`, `#`, `--`, `/** *\/`, `{- -}`), or a doc
 * attribute (Elixir's `@doc`), turned into prose. Licence headers are not
 * documentation.
 */
import { fold } from '../../element.js';
import { cleanBlock } from '../comments.js';
import type { SyntaxNode } from '../syntax-node.js';
import type { CommentSyntax, GenericLanguage } from './spec.js';

const C_COMMENTS: CommentSyntax = { line: ['//'], block: [['/*', '*/']] };

/**
 * The comment directly above a definition that starts at `start`, read
 * from the source text: a block comment ending on the line above, or the
 * run of line comments there (attribute lines such as Rust's `#[derive]`
 * may sit between). Reading the text costs far less than walking the
 * tree's siblings (a `///` line is a node of its own, and finding a
 * previous sibling walks its parent's children), and it finds comments
 * wherever the grammar put them.
 */
export function docInSource(source: string, start: number, spec: GenericLanguage): string {
  const syntax = spec.comments ?? C_COMMENTS;
  let lineEnd = source.lastIndexOf('\n', start - 1);
  if (lineEnd < 0 || source.slice(lineEnd + 1, start).trim() !== '') return '';
  const run: string[] = [];
  while (lineEnd > 0) {
    const lineStart = source.lastIndexOf('\n', lineEnd - 1) + 1;
    const line = source.slice(lineStart, lineEnd).trim();
    if (line === '') break;
    if (run.length === 0 && spec.attributeLine?.test(line)) {
      lineEnd = lineStart - 1;
      continue;
    }
    const block = run.length === 0 ? syntax.block?.find(([, close]) => line.endsWith(close)) : undefined;
    if (block) {
      // Up to the line that opens it; a block comment is a doc on its own.
      let open = lineStart;
      let text = source.slice(open, lineEnd);
      while (!text.includes(block[0]) && open > 0) {
        open = source.lastIndexOf('\n', open - 2) + 1;
        text = source.slice(open, lineEnd);
      }
      if (text.includes(block[0])) run.push(text.slice(text.indexOf(block[0])));
      break;
    }
    if (!syntax.line.some((marker) => line.startsWith(marker))) break;
    run.unshift(line);
    lineEnd = lineStart - 1;
  }
  return commentProse(run);
}

const MAX_DESCRIPTION = 600;
const LICENCE = /\bcopyright\b|SPDX-License|licensed under|\blicen[cs]e\b.*\b(version|terms)\b/i;

export function docAbove(node: SyntaxNode, spec: GenericLanguage): string {
  let row = node.startPosition.row;
  // The first statement of a body that the grammar starts with it (Ruby's
  // body_statement): its comment lies before the body.
  let anchor = node;
  let previous = anchor.previousNamedSibling;
  while (!previous && anchor.parent && anchor.parent.startIndex === anchor.startIndex) {
    anchor = anchor.parent;
    previous = anchor.previousNamedSibling;
  }
  while (
    previous &&
    spec.betweenDocAndDefinition?.includes(previous.type) &&
    !spec.docAttribute?.test(previous.text) &&
    previous.endPosition.row >= row - 1
  ) {
    row = previous.startPosition.row;
    previous = previous.previousNamedSibling;
  }
  if (!previous || previous.endPosition.row < row - 1) return '';
  if (spec.docAttribute?.test(previous.text)) return attributeDoc(previous.text);
  // Some grammars end the node before with the comment (Haskell's imports).
  if (!isComment(previous, spec)) previous = lastComment(previous, spec);
  const run: string[] = [];
  for (
    let comment: SyntaxNode | null = previous;
    comment && isComment(comment, spec) && comment.endPosition.row >= row - 1;
    comment = comment.previousNamedSibling
  ) {
    run.unshift(comment.text);
    row = comment.startPosition.row;
  }
  return commentProse(run);
}

/**
 * Whether the line above `start` may end a doc attribute (`@doc "…"`, a
 * heredoc's closing `"""`, an `@spec` between): only then is the tree asked.
 */
export function attributeAbove(source: string, start: number): boolean {
  const lineEnd = source.lastIndexOf('\n', start - 1);
  if (lineEnd <= 0) return false;
  const line = source.slice(source.lastIndexOf('\n', lineEnd - 1) + 1, lineEnd).trim();
  return line.startsWith('@') || line.endsWith('"');
}

/**
 * The doc a container keeps in its body (Elixir's `@moduledoc`): its first
 * statement, or a statement of the language's container-doc form anywhere
 * among them (Phoenix.Router defines its exceptions before its moduledoc).
 */
export function docInside(body: SyntaxNode | null | undefined, spec: GenericLanguage): string {
  const first = body?.firstNamedChild;
  if (first && spec.docAttribute?.test(first.text)) return attributeDoc(first.text);
  const containerDoc = spec.containerDocAttribute;
  const doc = containerDoc && body?.namedChildren.find((child) => containerDoc.test(child.text));
  return doc ? attributeDoc(doc.text) : '';
}

/** The file's opening comment (not a licence), when it is not the doc of the first declaration. */
export function fileSummary(root: SyntaxNode, spec: GenericLanguage): string {
  const run: SyntaxNode[] = [];
  for (const child of root.namedChildren) {
    // Lines before any comment that are not code (`{-# LANGUAGE #-}`, `<?php`).
    if (run.length === 0 && /pragma|php_tag/.test(child.type)) continue;
    if (!isComment(child, spec)) {
      if (run.length === 0) return '';
      const last = run.at(-1)!;
      // A comment right above a declaration documents the declaration;
      // above a package, module or import line, it documents the file.
      const attached =
        child.startPosition.row <= last.endPosition.row + 1 &&
        !run[0]!.text.startsWith('//!') &&
        !/package|module|namespace|import|use|include|preproc|pragma|header/.test(child.type);
      if (attached) return '';
      const prose = commentProse(run.map((c) => c.text));
      if (prose) return prose;
      return '';
    }
    const previous = run.at(-1);
    if (previous && child.startPosition.row > previous.endPosition.row + 1) {
      // A blank line ends a run: a licence header is skipped, anything else is the summary.
      const prose = commentProse(run.map((c) => c.text));
      if (prose) return prose;
      run.length = 0;
    }
    run.push(child);
  }
  return run.length > 0 ? commentProse(run.map((c) => c.text)) : '';
}

function lastComment(node: SyntaxNode | null | undefined, spec: GenericLanguage): SyntaxNode | null {
  const last = node?.lastNamedChild;
  return last && isComment(last, spec) ? last : null;
}

function isComment(node: SyntaxNode, spec: GenericLanguage): boolean {
  return spec.commentTypes ? spec.commentTypes.includes(node.type) : node.type.includes('comment');
}

/** Comment texts (one block, or a run of line comments) as prose, without markers and tags. */
function commentProse(texts: string[]): string {
  if (texts.length === 0) return '';
  const whole = texts.join('\n');
  if (LICENCE.test(whole)) return '';
  const first = texts[0]!.trimStart();
  if (first.startsWith('{-#')) return ''; // a Haskell pragma
  if (texts.length === 1 && first.startsWith('/*')) return cleanBlock(first.replace(/^\/\*[*!]?/, '/**'));
  if (texts.length === 1 && first.startsWith('{-'))
    return clip(prose(first.replace(/^\{-\s*\|?|-\}$/g, '').split('\n')));
  if (texts.length === 1 && first.startsWith('--[['))
    return clip(prose(first.replace(/^--\[=*\[|\]=*\]$/g, '').split('\n')));
  if (texts.length === 1 && first.startsWith('=begin'))
    return clip(prose(first.replace(/^=begin|=end$/g, '').split('\n')));
  const lines = whole
    .split('\n')
    .filter((line) => !line.startsWith('#!')) // a shebang is not documentation
    .map((line) => line.trim().replace(/^(\/\/[/!]?|#+!?|--+-?\s*[|^]?|;+|\*)\s?/, ''));
  const text = clip(prose(lines));
  return /^:nodoc:$/.test(text) ? '' : text; // Ruby's marker for what has no documentation
}

/**
 * Lines up to the first tag (`@param`, `:param`, C#'s `<param>`): the prose
 * part of a doc, without XML doc markup (`<see cref="X"/>` → X).
 */
function prose(lines: string[]): string {
  const kept: string[] = [];
  for (const line of lines) {
    if (/^\s*(@\w|:param\b|:returns?\b|<(param|returns|exception|typeparam|example)\b)/.test(line)) break;
    kept.push(line);
  }
  return kept
    .join(' ')
    .replace(/<see\w*\s+\w+="(?:[A-Z]:)?([^"]*)"\s*\/>/g, '$1')
    .replace(/<\/?[a-z]+\b[^>]*>/g, ' ');
}

/** `@doc """ … """`, `@doc "…"`, `@doc false` → the text, or nothing. */
function attributeDoc(text: string): string {
  const value = text.replace(/^@\w+\s*/, '').replace(/^~[sS]/, '');
  if (!/^["']/.test(value)) return '';
  return clip(prose(value.replace(/^("""|'''|"|')|("""|'''|"|')$/g, '').split('\n')));
}

function clip(text: string): string {
  return fold(text, MAX_DESCRIPTION);
}
