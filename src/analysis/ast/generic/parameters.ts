/**
 * The parameters of a generic-language definition: which node holds them,
 * and their names and types read from the list's text by the language's
 * order of the two (`name: type`, `name type`, `type name`). Text, not
 * nodes: one read of the list instead of a node and its fields per
 * parameter, and the same code for every grammar.
 */
import type { Parameter } from '../../types.js';
import { collapse } from '../extraction.js';
import type { SyntaxNode } from '../syntax-node.js';
import type { GenericLanguage, ParameterSyntax } from './spec.js';

/** The value parameters; Scala keeps type parameters in the same field, before them. */
export function parameterList(node: SyntaxNode): SyntaxNode | undefined {
  const first = node.childForFieldName('parameters');
  if (!first?.type.startsWith('type')) return first ?? undefined;
  return node.childrenForFieldName('parameters').find((list) => !list.type.startsWith('type'));
}

/**
 * Parameters from the text of their list, split at its top-level commas:
 * one read of the text instead of a node (and its fields) per parameter.
 * Swift keeps its parameters as children of the declaration: those are read
 * one by one.
 */
export function parametersOf(list: SyntaxNode, spec: GenericLanguage): Parameter[] {
  const syntax = spec.parameterSyntax ?? 'name: type';
  const texts = spec.parameterTypes
    ? list.namedChildren.filter((child) => spec.parameterTypes!.includes(child.type)).map((child) => child.text)
    : splitTopLevel(stripComments(list.text).replace(/^\s*[([{|]|[)\]}|]\s*$/g, ''));
  const parameters: Parameter[] = [];
  for (const text of texts) {
    if (!text || SELF_PARAMETER.test(text)) continue;
    const parsed = splitParameter(text, syntax);
    if (parsed) parameters.push({ name: collapse(parsed.name, 80), type: collapse(parsed.type, 200) });
  }
  if (syntax === 'name type') {
    // Go: `a, b int` types both.
    for (let i = parameters.length - 2; i >= 0; i--)
      if (!parameters[i]!.type && parameters[i + 1]!.name) parameters[i]!.type = parameters[i + 1]!.type;
  }
  return parameters;
}

/** Rust's and others' receivers, which callers do not pass. */
const SELF_PARAMETER = /^(&\s*('\w+\s+)?)?(mut\s+)?(self|this)$/;

function stripComments(text: string): string {
  return text.includes('/') ? text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '') : text;
}

/** `a: Map<K, V>, b: (x, y) -> z` → the two parameters: commas inside brackets, parentheses and strings do not split. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'" || ch === '`') {
      // A Rust lifetime (`'a`) is not a string.
      if (!(ch === "'" && /\w/.test(text[i + 1] ?? '') && text[i + 2] !== "'")) quote = ch;
    } else if (ch === '(' || ch === '[' || ch === '{' || ch === '<') depth++;
    else if (ch === ')' || ch === ']' || ch === '}' || (ch === '>' && text[i - 1] !== '=' && text[i - 1] !== '-'))
      depth = Math.max(0, depth - 1);
    else if (ch === ',' && depth === 0) {
      parts.push(text.slice(from, i).trim());
      from = i + 1;
    }
  }
  parts.push(text.slice(from).trim());
  return parts;
}

/**
 * A parameter's name and type from its text, by the language's order of
 * the two: cheaper than asking the tree for them, and the same for every
 * grammar. Default values are dropped.
 */
function splitParameter(text: string, syntax: ParameterSyntax): Parameter | undefined {
  const declaration = text.replace(/\s*=(?!>)[\s\S]*$/, '').trim();
  if (syntax === 'name: type') {
    // `x: Int`, `_ x: Int`, `vararg x: Int`: the name is the last word before the colon.
    const colon = declaration.search(/:(?!:)/);
    if (colon < 0) return { name: declaration, type: '' };
    return { name: declaration.slice(0, colon).trim().split(/\s+/).pop()!, type: declaration.slice(colon + 1).trim() };
  }
  if (syntax === 'name type') {
    // Go: `w http.ResponseWriter`, `a, b int`, `args ...string`.
    const space = declaration.search(/\s/);
    return space < 0
      ? { name: '', type: declaration }
      : { name: declaration.slice(0, space).replace(/,$/, ''), type: declaration.slice(space).trim() };
  }
  // `String s`, `const char *name`, `int (*callback)(void *)`, `string $a`: the name is the last identifier (a function pointer's, inside its parentheses).
  if (declaration === 'void' || declaration === '...')
    return declaration === '...' ? { name: '...', type: '' } : undefined;
  const pointer = /\(\s*[*&^]\s*([A-Za-z_$][\w$]*)\s*\)/.exec(declaration);
  const match = pointer ?? /([A-Za-z_$][\w$]*)\s*(\[[^\]]*\]\s*)*$/.exec(declaration);
  if (!match) return { name: '', type: declaration };
  const name = match[1]!;
  const type = (pointer ? declaration.replace(pointer[0], '(*)') : declaration.slice(0, match.index)).trim();
  return { name, type };
}
