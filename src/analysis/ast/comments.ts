/** Descriptions from doc comments: JSDoc/TSDoc blocks, `//` runs, Python docstrings. */
import { fold } from '../element.js';
import type { SyntaxNode } from './syntax-node.js';

const MAX_DESCRIPTION = 600;

/**
 * The comment written directly above `node` (no blank line between): a
 * `/** … *\/` block, or a run of `//` or `#` lines. Returns its prose, without
 * comment markers and without JSDoc tags.
 */
export function commentAbove(node: SyntaxNode): string {
  const comment = node.previousNamedSibling;
  if (comment?.type !== 'comment') return '';
  if (comment.endPosition.row < node.startPosition.row - 1) return '';
  const text = comment.text;
  if (text.startsWith('/**')) return cleanBlock(text);
  if (text.startsWith('/*')) return '';
  // Collect the contiguous run of line comments ending just above the node.
  const lines = [text];
  let row = comment.startPosition.row;
  for (
    let previous = comment.previousNamedSibling;
    previous?.type === 'comment';
    previous = previous.previousNamedSibling
  ) {
    if (previous.endPosition.row !== row - 1 || !/^(\/\/|#)/.test(previous.text)) break;
    lines.unshift(previous.text);
    row = previous.startPosition.row;
  }
  return clip(lines.map((line) => line.replace(/^(\/\/+|#+)!?\s?/, '')).join(' '));
}

/** The prose of a JSDoc block: text before the first `@tag`, markers removed. */
export function cleanBlock(block: string): string {
  const body = block
    .replace(/^\/\*\*+/, '')
    .replace(/\*+\/$/, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, ''));
  const prose: string[] = [];
  for (const line of body) {
    if (/^\s*@\w/.test(line)) break;
    prose.push(line);
  }
  return clip(prose.join(' '));
}

/** A Python docstring: the first statement of a body, if it is a string. */
export function docstringOf(body: SyntaxNode | null): string {
  let first = body?.firstNamedChild;
  while (first?.type === 'comment') first = first.nextNamedSibling; // a licence header above a module docstring
  if (first?.type !== 'expression_statement') return '';
  const string = first.firstNamedChild;
  if (string?.type !== 'string') return '';
  const content = string.text.replace(/^[rRbBuUfF]*("""|'''|"|')/, '').replace(/("""|'''|"|')$/, '');
  // Like JSDoc tags, Google/NumPy-style sections and reST fields end the prose.
  const prose: string[] = [];
  for (const line of content.split('\n')) {
    if (
      /^\s*(Args|Arguments|Parameters|Returns|Return|Raises|Yields|Examples?|Notes?|Attributes):\s*$/.test(line) ||
      /^\s*:(param|returns?|raises|type)\b/.test(line)
    )
      break;
    prose.push(line);
  }
  return clip(prose.join(' '));
}

function clip(text: string): string {
  return fold(text, MAX_DESCRIPTION);
}

/** A file's opening doc comment, when it is not the doc of the first declaration. */
export function leadingComment(root: SyntaxNode): string {
  const first = root.firstNamedChild;
  if (first?.type !== 'comment' || !first.text.startsWith('/*')) return '';
  const next = first.nextNamedSibling;
  if (
    next &&
    next.type !== 'comment' &&
    next.type !== 'import_statement' &&
    next.startPosition.row <= first.endPosition.row + 1
  )
    return '';
  return cleanBlock(first.text.replace(/^\/\*(?!\*)/, '/**'));
}
