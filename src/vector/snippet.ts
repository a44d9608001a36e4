/**
 * The code shown in an element's document, cut by element type: a class
 * shows its declaration and fields up to the first method, a function
 * itself, a property its declaration. Long lines are cut too, so a
 * pathological line cannot blow up a document.
 */
import type { CodeElement, ElementType } from '../analysis/types.js';

export interface SnippetLimits {
  /** Classes, interfaces, namespaces: lines up to the first member function. */
  containerLines: number;
  /** Functions, methods, constructors. */
  functionLines: number;
  /** Everything else (properties, enums, sections...). */
  otherLines: number;
  lineLength: number;
}

export const DEFAULT_SNIPPET_LIMITS: SnippetLimits = {
  containerLines: 50,
  functionLines: 100,
  otherLines: 100,
  lineLength: 300,
};

const CONTAINERS: ReadonlySet<ElementType> = new Set([
  'class',
  'struct',
  'interface',
  'trait',
  'impl',
  'module',
  'namespace',
]);
const FUNCTIONS: ReadonlySet<ElementType> = new Set(['function', 'method', 'constructor']);

/**
 * @param lines the file's lines (0-based array; element lines are 1-based)
 * @param firstMemberLine for containers: where the first method starts, if any
 */
export function cutSnippet(
  element: CodeElement,
  lines: readonly string[],
  firstMemberLine?: number,
  limits = DEFAULT_SNIPPET_LIMITS,
): string {
  const start = Math.max(1, element.startLine);
  let end = Math.min(element.endLine, lines.length);
  let cap = limits.otherLines;
  if (CONTAINERS.has(element.type)) {
    cap = limits.containerLines;
    if (firstMemberLine !== undefined && firstMemberLine > start && firstMemberLine <= end) end = firstMemberLine - 1;
  } else if (FUNCTIONS.has(element.type)) cap = limits.functionLines;

  const shown = Math.min(end - start + 1, cap);
  const out: string[] = [];
  for (let line = start; line < start + shown; line++) {
    const text = lines[line - 1] ?? '';
    out.push(text.length > limits.lineLength ? `${text.slice(0, limits.lineLength)} …` : text);
  }
  const hidden = element.endLine - (start + shown - 1);
  if (hidden > 0) out.push(`… (${hidden} more line${hidden === 1 ? '' : 's'})`);
  return dedent(out).join('\n');
}

/** Removes the indentation all lines share, so a method reads like top-level code. */
export function dedent(lines: string[]): string[] {
  let common = Infinity;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const indent = /^[ \t]*/.exec(line)![0].length;
    if (indent < common) common = indent;
  }
  return common === 0 || common === Infinity ? lines : lines.map((line) => line.slice(Math.min(common, line.length)));
}
