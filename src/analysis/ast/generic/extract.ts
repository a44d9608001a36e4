/**
 * Code elements of any language with a GenericLanguage table, from one
 * tree-sitter query run over the whole tree. The query (in C) finds the
 * definitions, their names and the relations; JavaScript only nests the
 * definitions by their byte ranges to qualify names (`Router.handle`), reads
 * each definition's head for its signature and access, and credits each
 * relation to the innermost element around it. No JavaScript-side walk of
 * the tree: extraction stays close to the cost of parsing.
 */
import { fold, isCodeElementType, newElement } from '../../element.js';
import type { AccessModifier, CodeElement, CodeElementType, DependencyType } from '../../types.js';
import { attributeAbove, docAbove, docInside, docInSource, fileSummary } from './docs.js';
import type { ParsedSource, SyntaxExtractor } from '../extractor.js';
import { type Extraction, addDependency, collapse, signatureText } from '../extraction.js';
import type { Query, SyntaxNode } from '../syntax-node.js';
import { parameterList, parametersOf } from './parameters.js';
import { Rows } from './source-rows.js';
import type { GenericLanguage } from './spec.js';
import { AnalysisError } from '../../errors.js';

const MAX_CALLS = 40;

/** Kinds whose members are named after them, and whose functions are methods. */
const CONTAINERS: ReadonlySet<CodeElementType> = new Set([
  'class',
  'struct',
  'interface',
  'trait',
  'enum',
  'impl',
  'module',
  'namespace',
]);
const TYPE_LIKE: ReadonlySet<CodeElementType> = new Set(['class', 'struct', 'interface', 'trait', 'enum', 'impl']);
const FUNCTION_LIKE: ReadonlySet<CodeElementType> = new Set(['function', 'method', 'constructor', 'macro']);
const MEMBERS: ReadonlySet<CodeElementType> = new Set(['field', 'property', 'constant', 'signal']);
const RELATIONS: Readonly<Record<string, DependencyType>> = {
  'reference.calls': 'calls',
  'reference.inherits': 'inherits',
  'reference.implements': 'implements',
  'reference.uses': 'uses',
};

/** A definition found by the query, before it becomes an element. */
interface Definition {
  /** What the element spans: the captured node, or the wrapper around it. */
  node: SyntaxNode;
  /** The captured node, whose fields hold the body and parameters. */
  inner: SyntaxNode;
  kind: CodeElementType;
  name: string;
  receiver?: string | undefined;
  trait?: string | undefined;
  body?: SyntaxNode | undefined;
  parameters?: SyntaxNode | undefined;
  returns?: SyntaxNode | undefined;
  nameNode?: SyntaxNode | undefined;
  start: number;
  end: number;
  pattern: number;
}

interface Relation {
  type: DependencyType;
  /** Read only when the relation is kept (most calls past the cap are not). */
  node: SyntaxNode;
  start: number;
}

interface Compiled {
  query: Query;
  spec: GenericLanguage;
}

const compiled = new WeakMap<GenericLanguage, Compiled>();

/** The query of `spec`, compiled once per grammar (per worker thread). Throws when it does not fit the grammar. */
function compile({ grammar, compileQuery }: ParsedSource, spec: GenericLanguage): Compiled {
  let entry = compiled.get(spec);
  if (!entry) {
    entry = { query: compileQuery(grammar, spec.query), spec };
    for (const [, kind] of spec.query.matchAll(/@definition\.([\w-]+)/g)) {
      if (!isCodeElementType(kind!))
        throw new AnalysisError(`query captures an unknown element kind: @definition.${kind}`, 'BAD_GRAMMAR_QUERY');
    }
    compiled.set(spec, entry);
  }
  return entry;
}

/** The extractor of a language that has a table (languages/) rather than an extractor of its own. */
export function genericExtractor(spec: GenericLanguage): SyntaxExtractor {
  const { blankLines } = spec;
  return {
    ...(blankLines
      ? { textToParse: (text: string) => text.replace(blankLines, (line) => ' '.repeat(line.length)) }
      : {}),
    extract: (parsed, out) => extractGeneric(parsed, spec, out),
    summary: (root) => fileSummary(root, spec),
  };
}

function extractGeneric(parsed: ParsedSource, spec: GenericLanguage, out: Extraction): void {
  const { root, source } = parsed;
  const { query } = compile(parsed, spec);
  const definitions = new Map<string, Definition>();
  const relations: Relation[] = [];
  for (const match of query.matches(root)) {
    let captured: { kind: CodeElementType; node: SyntaxNode } | undefined;
    const names: SyntaxNode[] = [];
    const parts: Record<string, SyntaxNode> = {};
    // Relations and imports go straight in, and are taken back if the match does not stand as a statement.
    const relationsBefore = relations.length;
    const importsBefore = out.imports.length;
    for (const { name, node } of match.captures) {
      if (name.startsWith('definition.'))
        captured = { kind: name.slice('definition.'.length) as CodeElementType, node };
      else if (name in RELATIONS) relations.push({ type: RELATIONS[name]!, node, start: node.startIndex });
      else if (name === 'import')
        out.imports.push({ module: fold(unquote(node.text), 200), line: node.startPosition.row + 1 });
      else if (name === 'name')
        names.push(node); // several parts when the grammar splits a qualified name
      else parts[name] = node;
    }
    // The keyword first: most calls are no definition, and reading a node's parent crosses into the binding.
    const kind = captured && (parts.keyword ? keywordKind(spec, captured.kind, parts.keyword.text) : captured.kind);
    if (parts.statement && (kind || !captured) && !standsAsStatement(parts.statement, spec)) {
      relations.length = relationsBefore;
      out.imports.length = importsBefore;
      continue;
    }
    if (!captured || !kind || names.length === 0) continue;
    const wide = widen(captured.node, spec);
    const definition: Definition = {
      node: wide,
      inner: captured.node,
      kind,
      name: '',
      start: wide.startIndex,
      end: wide.endIndex,
      pattern: match.pattern,
    };
    definition.name = names.map((node) => node.text.trim().replace(/^:/, '')).join('.'); // Ruby's `attr_reader :name`
    definition.nameNode = names[0];
    definition.receiver = parts.receiver?.text;
    definition.trait = parts.trait?.text;
    definition.body = parts.body;
    definition.parameters = parts.parameters;
    definition.returns = parts.return;
    // Two patterns can match one node (a general and a more precise one):
    // the first pattern in the query wins.
    const key = `${definition.start}:${definition.end}:${definition.name}`;
    const known = definitions.get(key);
    if (!known || known.pattern > definition.pattern) definitions.set(key, definition);
  }
  const elements = nest(
    [...definitions.values()].sort((a, b) => a.start - b.start || b.end - a.end),
    new Rows(source),
    spec,
  );
  for (const { element } of elements) out.add(element);
  credit(elements, relations, spec);
}

/** The element kind a definition's keyword gives (spec.keywords), or undefined when that word makes none. */
function keywordKind(spec: GenericLanguage, kind: CodeElementType, keyword: string): CodeElementType | undefined {
  const accepted = spec.keywords && Object.hasOwn(spec.keywords, kind) ? spec.keywords[kind] : undefined;
  return accepted && Object.hasOwn(accepted, keyword) ? accepted[keyword] : undefined;
}

/** Whether a `@statement` capture stands directly where spec.statementParents says statements stand. */
function standsAsStatement(node: SyntaxNode, spec: GenericLanguage): boolean {
  const parent = node.parent?.type;
  return parent !== undefined && (spec.statementParents?.includes(parent) ?? true);
}

/**
 * The wrapper around this definition (Go's type_declaration around a
 * type_spec, C++'s template_declaration) when it wraps no other of its
 * kind; otherwise the node itself.
 */
function widen(node: SyntaxNode, spec: GenericLanguage): SyntaxNode {
  if (!spec.wrappers) return node;
  const parent = node.parent;
  if (!parent || !spec.wrappers.includes(parent.type)) return node;
  return parent.namedChildren.filter((child) => child.type === node.type).length === 1 ? parent : node;
}

interface Placed {
  element: CodeElement & { type: CodeElementType };
  definition: Definition;
  /** The name its members are qualified with (an impl block: the type it is for). */
  scope: string;
}

/** Elements from definitions sorted by start: nested by byte range, named after their containers. */
function nest(definitions: Definition[], rows: Rows, spec: GenericLanguage): Placed[] {
  const { source } = rows;
  const placed: Placed[] = [];
  const open: Placed[] = [];
  let skipUntil = -1;
  for (const definition of definitions) {
    if (definition.start < skipUntil) continue;
    while (open.length > 0 && open.at(-1)!.definition.end <= definition.start) open.pop();
    // Several definitions can share one node (`attr_reader :a, :b`): siblings, not containers.
    const encloses = (entry: Placed) =>
      entry.definition.start !== definition.start || entry.definition.end !== definition.end;
    let container = open.findLast(encloses);
    if (container && FUNCTION_LIKE.has(container.element.type)) {
      // What is defined inside a function body (closures, local helpers) is
      // part of that function, not an element of its own. But after a syntax
      // error, tree-sitter can fold the declarations that follow into the
      // function's body: those are still found, at the function's level.
      if (!container.definition.node.hasError) {
        skipUntil = Math.max(skipUntil, definition.end);
        continue;
      }
      container = open.findLast((entry) => encloses(entry) && !FUNCTION_LIKE.has(entry.element.type));
    }
    const element = toElement(definition, container, rows, spec);
    const previous = placed.at(-1);
    if (spec.mergeClauses && previous && sameDefinition(previous.element, element)) {
      previous.element.endLine = Math.max(previous.element.endLine, element.endLine);
      previous.definition.end = Math.max(previous.definition.end, definition.end);
      if (previous.element.parameters.length === 0) previous.element.parameters = element.parameters;
      continue;
    }
    if (container && TYPE_LIKE.has(container.element.type) && !hasAccessKeyword(definition, source, spec)) {
      if (publicMembers(container)) element.access = 'public';
      else if (spec.memberAccess) element.access = spec.memberAccess;
    }
    const entry: Placed = { element, definition, scope: scopeOf(element, definition) };
    placed.push(entry);
    open.push(entry);
    if (container && MEMBERS.has(element.type)) {
      container.element.properties.push({ name: element.name, type: element.returnType, accessors: [] });
    }
  }
  return placed;
}

function sameDefinition(a: CodeElement, b: CodeElement): boolean {
  return a.name === b.name && a.parent === b.parent && a.type === b.type;
}

/** Members of an interface or trait, and of an impl of a trait, are as public as it is. */
function publicMembers(container: Placed): boolean {
  const kind = container.element.type;
  return kind === 'interface' || kind === 'trait' || (kind === 'impl' && Boolean(container.definition.trait));
}

function scopeOf(element: CodeElement, definition: Definition): string {
  const own = element.type === 'impl' ? typeName(definition.name) : element.name;
  return join(element.parent, own);
}

function toElement(
  definition: Definition,
  container: Placed | undefined,
  rows: Rows,
  spec: GenericLanguage,
): Placed['element'] {
  const { source } = rows;
  const { node, inner } = definition;
  let kind = definition.kind;
  let parent = container && CONTAINERS.has(container.element.type) ? container.scope : '';
  if (definition.receiver) parent = typeName(definition.receiver);
  // `Foo::bar`, `M.bar`, `M:bar`: the qualifier is the parent.
  const parts = definition.name.split(/::|\.|:|->|\\/).filter(Boolean);
  let name = parts.pop() ?? definition.name;
  if (kind === 'impl')
    name = (spec.implName ?? rustImplName)(
      typeName(definition.name),
      definition.trait ? typeName(definition.trait) : '',
    );
  else if (parts.length > 0) parent = join(parent, parts.join('.'));
  const inType =
    (container && TYPE_LIKE.has(container.element.type)) ||
    Boolean(definition.receiver) ||
    (parts.length > 0 && kind === 'function' && definition.name.includes(':'));
  if (kind === 'function' && inType) kind = 'method';
  if (
    (kind === 'method' || kind === 'function') &&
    (spec.constructorNames?.includes(name) ||
      (spec.constructorIsTypeName && parent !== '' && name === lastPart(parent)))
  ) {
    kind = 'constructor';
  }
  // Members (fields, constants) are shown whole; only what has a body is cut at it.
  const member = MEMBERS.has(kind);
  const body = definition.body ?? (member ? undefined : (inner.childForFieldName('body') ?? undefined));
  // A body's opening word (Haskell's `where`, Elixir's `do`) is not part of the signature.
  const signature = body
    ? signatureOf(source, definition.start, body)
    : headLine(source, definition, CONTAINERS.has(kind));
  const element = newElement({
    type: kind,
    name,
    parent,
    access: accessOf(definition, source, name, spec),
    startLine: rows.of(definition.start) + 1,
    endLine: rows.last(definition.start, definition.end) + 1,
    signature,
    description:
      spec.docAttribute && attributeAbove(source, definition.start)
        ? docAbove(node, spec)
        : docInSource(source, definition.start, spec),
  }) as Placed['element'];
  if (!element.description && body && spec.docAttribute) element.description = docInside(body, spec);
  const callable = FUNCTION_LIKE.has(kind) || kind === 'delegate';
  const parameters = definition.parameters ?? (callable ? parameterList(inner) : undefined);
  if (parameters) element.parameters = parametersOf(parameters, spec);
  const returns = definition.returns ?? (callable ? inner.childForFieldName('return_type') : undefined);
  if (returns) element.returnType = collapse(returns.text.replace(/^\s*(:|->)\s*/, ''), 200);
  return element;
}

/**
 * A declaration's text up to its body, or up to a comment between its head
 * and its body (Ruby's doc inside `module X`); a body's opening word
 * (Haskell's `where`, Elixir's `do`) is not part of it.
 */
function signatureOf(source: string, start: number, body: SyntaxNode): string {
  let end = body.startIndex;
  if (/#|\/\/|\/\*|--/.test(source.slice(start, end))) {
    for (let node = body.previousNamedSibling; node?.type.includes('comment'); node = node.previousNamedSibling)
      end = node.startIndex;
  }
  return signatureText(source.slice(start, end)).replace(/\s+(where|do)$/, '');
}

/**
 * A declaration without a body the grammar names: its text, folded, up to
 * 200 characters (a macro, a field); a container's up to its opening brace
 * (Zig's `pub const Edit = struct`).
 */
function headLine(source: string, definition: Definition, isContainer: boolean): string {
  const text = source.slice(definition.start, Math.min(definition.end, definition.start + 400));
  const brace = isContainer ? text.indexOf('{') : -1;
  return collapse(brace > 0 ? text.slice(0, brace) : text, 200);
}

function rustImplName(type: string, trait: string): string {
  return trait ? `impl ${trait} for ${type}` : `impl ${type}`;
}

/** The head of a declaration (before its name) decides access: `pub`, `private`, `defp`, `local`. */
function accessOf(definition: Definition, source: string, name: string, spec: GenericLanguage): AccessModifier {
  const keyword = accessKeyword(definition, source, spec);
  if (keyword) return keyword;
  // Impl blocks and namespaces have no access of their own.
  if (definition.kind === 'impl' || definition.kind === 'namespace') return 'public';
  if (spec.accessByCase) return /^[A-Z]/.test(name) ? 'public' : 'internal';
  return spec.defaultAccess;
}

function accessKeyword(
  { start, nameNode }: Definition,
  source: string,
  spec: GenericLanguage,
): AccessModifier | undefined {
  if (!spec.accessKeywords || !nameNode) return undefined;
  const head = source.slice(start, Math.max(start, nameNode.startIndex));
  for (const word of head.replace(/\s*\(\s*/g, '(').match(/[A-Za-z_]+(\([a-z]+\))?/g) ?? []) {
    if (Object.hasOwn(spec.accessKeywords, word)) return spec.accessKeywords[word];
  }
  return undefined;
}

function hasAccessKeyword(definition: Definition, source: string, spec: GenericLanguage): boolean {
  return accessKeyword(definition, source, spec) !== undefined;
}

/** Credits each relation to the innermost element around it; calls at most MAX_CALLS per element. */
function credit(placed: Placed[], relations: Relation[], spec: GenericLanguage): void {
  relations.sort((a, b) => a.start - b.start);
  const open: Placed[] = [];
  const calls = new Map<CodeElement, number>();
  let next = 0;
  for (const relation of relations) {
    while (next < placed.length && placed[next]!.definition.start <= relation.start) open.push(placed[next++]!);
    while (open.length > 0 && open.at(-1)!.definition.end <= relation.start) open.pop();
    // Stale entries below the top (closed, but under an open one) cannot hold a later position.
    const holder = open.at(-1);
    if (!holder) continue;
    const element = holder.element;
    const target = targetName(relation.node.text);
    if (!target || target === element.name || (relation.type === 'calls' && spec.ignoredCalls?.test(target))) continue;
    if (relation.type === 'calls') {
      const count = calls.get(element) ?? 0;
      if (count >= MAX_CALLS) continue;
      calls.set(element, count + 1);
    }
    addDependency(element, relation.type, target);
  }
}

/**
 * `Vec<T>` → Vec, `crate::io::Read` → crate.io.Read, `*Router` → Router; a
 * whole call (`this.helper(s)`) → its callee, helper.
 */
function targetName(text: string): string {
  const open = text.indexOf('(');
  const callee = open > 0 ? text.slice(0, open) : text;
  const name = typeName(callee)
    .replace(/::|->|\\|:/g, '.')
    .replace(/^\./, '')
    .replace(/^(this|self|\$this|@)\.?(?=\w)/, '')
    .replace(/\s*\.\s*/g, '.');
  return /^[\w$.\\@?!]+$/.test(name) && name.length <= 80 ? name : '';
}

/** A type's name without pointers, references, generics or lifetimes: `&'a mut Foo<T>` → Foo. */
function typeName(text: string): string {
  return text
    .replace(/<[\s\S]*>|\[[\s\S]*\]$/g, '')
    .replace(/^[\s*&(]+|(&|'\w+\s|\bmut\s|\bdyn\s|\bconst\s)/g, '')
    .replace(/[\s)]+$/, '')
    .trim();
}

function lastPart(path: string): string {
  return path.slice(path.lastIndexOf('.') + 1);
}

/** An import as a module name: `"fmt"` → fmt, `<stdio.h>` → stdio.h, `import a.b._` → a.b._. */
function unquote(text: string): string {
  return text
    .replace(/^\s*(import|using|use)\s+/, '')
    .replace(/^\s*["'<`]|["'>`;]\s*$/g, '')
    .trim();
}

function join(parent: string, child: string): string {
  return parent ? `${parent}.${child}` : child;
}
