/**
 * Where the syntax tree calls a name: the callee of every call node, by
 * its last name (`obj.save(x)` calls `save`, `new Index()` calls `Index`).
 * References (search/references.ts) mark these lines as calls; every other
 * occurrence of a word is a use. Which node types are calls is the
 * language's to say (`callTypes` in its record, languages/<name>.ts); the callee is
 * read the same way in every grammar.
 */
import type { SyntaxNode } from './syntax-node.js';

/** How far into a call its callee is looked for: a longer chain is not a name one calls. */
const MAX_CALLEE_CHARS = 200;
/** A name that ends right before an argument list (`?` and `!` end Ruby's method names). */
const NAME_BEFORE = /([\p{L}_$][\p{L}\p{N}_$]*)[?!]?$/u;
/** A callee as written: a chain of names joined by `.`, `::`, `->`, `:` or `?.` (`obj.save`, `Foo::bar`, `a?.b`), up to its arguments. */
const CALLEE = /^(?:new\s+)?([\p{L}_$][\p{L}\p{N}_$]*(?:(?:\?\.|\.|::|->|:)[\p{L}_$][\p{L}\p{N}_$]*[?!]?)*)/u;

export interface CallSite {
  name: string;
  /** 1-based. */
  line: number;
}

/**
 * The syntax tree finds the calls; their callees are read from the source,
 * not from more nodes (walking each callee's nodes through the binding cost
 * as much as parsing): the name right before the call's own argument list
 * (`a.b(c).save(x)` calls `save`), else, for a call without parentheses
 * (`puts x`, `list.map { }`), the last name of the chain it starts with.
 */
export function callSites(root: SyntaxNode, source: string, callTypes: readonly string[]): CallSite[] {
  const sites: CallSite[] = [];
  if (callTypes.length === 0) return sites;
  for (const call of root.descendantsOfType([...callTypes])) {
    const start = call.startIndex;
    const at = calleeBeforeArguments(source, start, call.endIndex) ?? calleeOfChain(source, start, call.endIndex);
    if (!at) continue;
    let line = call.startPosition.row + 1;
    for (let i = source.indexOf('\n', start); i !== -1 && i < at.index; i = source.indexOf('\n', i + 1)) line++;
    sites.push({ name: at.name, line });
  }
  return sites;
}

/** The name before the argument list that ends the call (`(...)` matched back from its end; generics skipped). */
function calleeBeforeArguments(
  source: string,
  start: number,
  end: number,
): { name: string; index: number } | undefined {
  if (source[end - 1] !== ')') return undefined;
  let i = end - 1;
  for (let depth = 0; i > start; i--) {
    const c = source[i];
    if (c === ')') depth++;
    else if (c === '(' && --depth === 0) break;
  }
  let j = i - 1;
  while (j > start && /\s/.test(source[j]!)) j--;
  if (source[j] === '>') {
    // Generic arguments: `foo<T>(`, Rust's `foo::<T>(`.
    for (let depth = 0; j > start; j--) {
      if (source[j] === '>') depth++;
      else if (source[j] === '<' && --depth === 0) break;
    }
    j--;
    if (source.slice(j - 1, j + 1) === '::') j -= 2;
  }
  const match = NAME_BEFORE.exec(source.slice(Math.max(start, j - MAX_CALLEE_CHARS), j + 1));
  if (!match) return undefined;
  return { name: match[1]!, index: j + 1 - match[0].length };
}

function calleeOfChain(source: string, start: number, end: number): { name: string; index: number } | undefined {
  const chain = CALLEE.exec(source.slice(start, Math.min(end, start + MAX_CALLEE_CHARS)))?.[1];
  if (!chain) return undefined;
  const name = /([\p{L}_$][\p{L}\p{N}_$]*)[?!]?$/u.exec(chain)![1]!;
  return { name, index: start + chain.lastIndexOf(name) };
}
