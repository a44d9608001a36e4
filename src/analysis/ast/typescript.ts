/**
 * Code elements of TypeScript, TSX and JavaScript files, from tree-sitter.
 *
 * Only declaration-level nodes are visited from JavaScript (statements,
 * class and interface bodies, namespace bodies); searches inside bodies
 * (calls, type references) run in tree-sitter's C code through
 * descendantsOfType, which keeps extraction close to the cost of parsing.
 */
import { commentAbove, leadingComment } from './comments.js';
import type { SyntaxExtractor } from './extractor.js';
import type { SyntaxNode } from './syntax-node.js';
import { type Extraction, addDependency, collapse, signatureUntil } from './extraction.js';
import { newElement } from '../element.js';
import type { AccessModifier, CodeElement, CodeElementType, Parameter } from '../element-types.js';

const MAX_CALLS = 40;

/** Where statements are: the dotted path of their container, and the access of what they do not export. */
interface Scope {
  parent: string;
  access: AccessModifier;
}

/** The extractor of TypeScript, TSX and JavaScript: their grammars share the node types it reads. */
export const typescriptExtractor: SyntaxExtractor = {
  extract: ({ root }, out) => extractTypeScript(root, out),
  summary: leadingComment,
};

function extractTypeScript(root: SyntaxNode, out: Extraction): void {
  // A file without imports or exports is a script: its top-level
  // declarations are global (lib.d.ts files, browser scripts). In a module
  // they are internal unless exported.
  const isModule = root.namedChildren.some((n) => n.type === 'import_statement' || n.type === 'export_statement');
  walkStatements(root.namedChildren, { parent: '', access: isModule ? 'internal' : 'public' }, out);
}

function walkStatements(statements: SyntaxNode[], scope: Scope, out: Extraction): void {
  for (const statement of statements) visitStatement(statement, scope, out);
}

/** `outer` carries position and comment (an export or declare wrapper); `decl` the declaration. */
function visitStatement(outer: SyntaxNode, scope: Scope, out: Extraction): void {
  let decl: SyntaxNode | null = outer;
  let exported = false;
  if (decl.type === 'export_statement') {
    exported = true;
    recordImport(decl, out);
    decl = decl.childForFieldName('declaration') ?? decl.childForFieldName('value');
  }
  while (decl && (decl.type === 'ambient_declaration' || decl.type === 'expression_statement')) {
    // `declare namespace X {}` and a bare `namespace X {}` (parsed as an
    // expression statement) wrap the declaration that matters. Ambient
    // declarations describe an API that exists elsewhere: they are public.
    if (decl.type === 'ambient_declaration') exported = true;
    decl = decl.firstNamedChild;
  }
  if (!decl) return;
  const { parent } = scope;
  const site: Site = { outer, decl, parent, access: exported ? 'public' : scope.access };

  switch (decl.type) {
    case 'ERROR':
      // tree-sitter keeps what it could parse under an ERROR node: the
      // declarations in there are still good.
      walkStatements(decl.namedChildren, scope, out);
      return;
    case 'import_statement':
      recordImport(decl, out);
      return;
    case 'class_declaration':
    case 'abstract_class_declaration':
    case 'class':
      classElement(site, out);
      return;
    case 'interface_declaration':
      interfaceElement(site, out);
      return;
    case 'enum_declaration':
      out.add(draft(site, 'enum', name(decl), signatureUntil(outer, decl.childForFieldName('body'))));
      return;
    case 'type_alias_declaration': {
      const element = draft(site, 'type-alias', name(decl), collapse(outer.text, 300));
      typeReferences(decl.childForFieldName('value')?.text ?? '', element);
      out.add(element);
      return;
    }
    case 'internal_module':
    case 'module': {
      const moduleName = name(decl).replace(/^['"]|['"]$/g, '');
      out.add(draft(site, 'namespace', moduleName, signatureUntil(outer, decl.childForFieldName('body'))));
      const body = decl.childForFieldName('body');
      // Namespace members are reachable through the namespace: public.
      if (body) walkStatements(body.namedChildren, { parent: join(parent, moduleName), access: 'public' }, out);
      return;
    }
    case 'function_declaration':
    case 'generator_function_declaration':
    case 'function_signature': {
      out.add(functionElement(site, 'function', name(decl)));
      // After a syntax error (an unclosed parenthesis or brace), tree-sitter
      // can fold the declarations that follow into this function's body:
      // they are still found, at this level.
      const body = decl.childForFieldName('body');
      if (decl.hasError && body) walkStatements(body.namedChildren, scope, out);
      return;
    }
    case 'lexical_declaration':
    case 'variable_declaration':
      variableElements(site, exported, out);
      return;
    case 'assignment_expression':
      assignedFunction(site, out);
      return;
    default:
      return;
  }
}

function classElement(site: Site, out: Extraction): void {
  const { outer, decl, parent } = site;
  const className = name(decl) || 'default';
  const body = decl.childForFieldName('body');
  const element = draft(site, 'class', className, signatureUntil(outer, body));
  for (const heritage of decl.namedChildren) {
    if (heritage.type !== 'class_heritage') continue;
    for (const clause of heritage.namedChildren) {
      if (clause.type === 'extends_clause' || clause.type === 'implements_clause') {
        const kind = clause.type === 'implements_clause' ? 'implements' : 'inherits';
        for (const target of clause.namedChildren) addDependency(element, kind, baseName(target.text));
      } else {
        // JavaScript's grammar puts the superclass expression directly here.
        addDependency(element, 'inherits', baseName(clause.text));
      }
    }
  }
  out.add(element);
  if (!body) return;
  const scope = join(parent, className);
  for (const member of body.namedChildren) {
    const child = classMember(member, scope);
    if (!child) continue;
    out.add(child);
    if (child.type === 'field' || child.type === 'property') {
      element.properties.push({ name: child.name, type: child.returnType, accessors: accessorsOf(member) });
    }
  }
}

function classMember(member: SyntaxNode, scope: string): CodeElement | undefined {
  switch (member.type) {
    case 'method_definition':
    case 'method_signature':
    case 'abstract_method_signature': {
      const memberName = name(member);
      const accessors = accessorsOf(member);
      const type: CodeElementType =
        memberName === 'constructor' ? 'constructor' : accessors.length > 0 ? 'property' : 'method';
      const element = functionElement(memberSite(member, scope), type, memberName);
      if (type === 'property' && accessors[0] === 'set') element.returnType = element.parameters[0]?.type ?? '';
      return element;
    }
    case 'public_field_definition':
    case 'field_definition': {
      const field = member.childForFieldName('name') ?? member.childForFieldName('property');
      if (!field) return undefined;
      const element = draft(
        memberSite(member, scope),
        'field',
        field.text,
        collapse(member.text.replace(/\s*=[\s\S]*$/, ''), 200),
      );
      element.returnType = typeText(member.childForFieldName('type'));
      const value = member.childForFieldName('value');
      if (value?.type === 'arrow_function' || value?.type === 'function_expression') {
        // A method written as an arrow-function field: keep its shape.
        element.type = 'method';
        element.parameters = parametersOf(
          value.childForFieldName('parameters') ?? value.childForFieldName('parameter'),
        );
        element.returnType = typeText(value.childForFieldName('return_type'));
        calls(value.childForFieldName('body'), element);
      }
      return element;
    }
    default:
      return undefined;
  }
}

function interfaceElement(site: Site, out: Extraction): void {
  const { outer, decl, parent } = site;
  const interfaceName = name(decl);
  const body = decl.childForFieldName('body');
  const element = draft(site, 'interface', interfaceName, signatureUntil(outer, body));
  for (const clause of decl.namedChildren) {
    if (clause.type !== 'extends_type_clause') continue;
    for (const target of clause.namedChildren) addDependency(element, 'inherits', baseName(target.text));
  }
  out.add(element);
  if (!body) return;
  const scope = join(parent, interfaceName);
  for (const member of body.namedChildren) {
    if (member.type === 'property_signature') {
      // One text read instead of three node lookups: interfaces in .d.ts
      // files hold thousands of these.
      const { name: propertyName, type, readonly } = splitDeclaration(member.text);
      element.properties.push({ name: propertyName, type, accessors: readonly ? ['get'] : ['get', 'set'] });
    } else if (member.type === 'method_signature') {
      out.add(functionElement(memberSite(member, scope, 'public'), 'method', name(member)));
    }
  }
}

/** Functions held in variables (`const f = () => …`), and module constants. */
function variableElements(site: Site, exported: boolean, out: Extraction): void {
  const { outer, decl, parent, access } = site;
  const isConst = decl.firstChild?.type === 'const';
  for (const declarator of decl.namedChildren) {
    if (declarator.type !== 'variable_declarator') continue;
    const nameNode = declarator.childForFieldName('name');
    if (nameNode?.type !== 'identifier') continue;
    const value = declarator.childForFieldName('value');
    const single = decl.namedChildCount === 1;
    const position = single ? outer : declarator;
    if (
      value &&
      (value.type === 'arrow_function' || value.type === 'function_expression' || value.type === 'function')
    ) {
      const element = functionElement({ outer: position, decl: value, parent, access }, 'function', nameNode.text);
      const head = single ? signatureUntil(outer, value) : nameNode.text;
      element.signature = collapse(`${head} = ${signatureUntil(value, value.childForFieldName('body'))}`, 300);
      out.add(element);
    } else if (value?.type === 'call_expression' && value.childForFieldName('function')?.text === 'require') {
      const source = value.childForFieldName('arguments')?.firstNamedChild;
      if (source?.type === 'string')
        out.imports.push({ module: unquote(source.text), line: declarator.startPosition.row + 1 });
    } else if (isConst && (exported || /^[A-Z][A-Z0-9_]*$/.test(nameNode.text))) {
      // Exported or SCREAMING_CASE constants are part of a module's surface;
      // other module-level consts are implementation detail.
      const element = draft(
        { outer: position, decl: declarator, parent, access },
        'constant',
        nameNode.text,
        collapse((single ? outer : declarator).text, 200),
      );
      element.returnType = typeText(declarator.childForFieldName('type'));
      out.add(element);
    }
  }
}

/**
 * A function assigned to a member, the way CommonJS and older JavaScript
 * define their API: `res.send = function send(body) {…}`,
 * `Router.prototype.route = function (path) {…}`, `exports.parse = (s) => …`.
 * Named after the member (`res.send`, `Router.route`, `parse`), so that a
 * query spelling it finds its definition.
 */
function assignedFunction({ outer, decl, parent }: Site, out: Extraction): void {
  // `res.contentType = res.type = function contentType(type) {…}`: one function, each name an element.
  const targets: SyntaxNode[] = [];
  let value: SyntaxNode | null = decl;
  while (value?.type === 'assignment_expression') {
    const left = value.childForFieldName('left');
    if (left) targets.push(left);
    value = value.childForFieldName('right');
  }
  if (!value || !FUNCTION_VALUES.has(value.type)) return;
  for (const left of targets) assignedMember(left, { outer, decl: value, parent, access: 'public' }, out);
}

/** `site.decl` is the function assigned to `left`. */
function assignedMember(left: SyntaxNode, site: Site, out: Extraction): void {
  if (left.type !== 'member_expression') return;
  const path = left.text.replace(/\s+/g, '').split('.');
  if (path.some((segment) => !/^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(segment))) return;
  const value = site.decl;
  let member = path.pop()!;
  // `module.exports = function createApplication() {…}` is named by the function itself.
  if (member === 'exports' && path.join('.') === 'module') member = value.childForFieldName('name')?.text ?? member;
  const owner = path.filter(
    (segment, i) => segment !== 'prototype' && segment !== 'exports' && !(i === 0 && segment === 'module'),
  );
  const parent = owner.length > 0 ? join(site.parent, owner.join('.')) : site.parent;
  const element = functionElement({ ...site, parent }, owner.length > 0 ? 'method' : 'function', member);
  element.signature = collapse(`${left.text} = ${signatureUntil(value, value.childForFieldName('body'))}`, 300);
  out.add(element);
}

const FUNCTION_VALUES: ReadonlySet<string> = new Set([
  'function_expression',
  'function',
  'arrow_function',
  'generator_function',
]);

function functionElement(site: Site, type: CodeElementType, elementName: string): CodeElement {
  const { outer, decl } = site;
  const body = decl.childForFieldName('body');
  const element = draft(site, type, elementName, signatureUntil(outer, body));
  element.parameters = parametersOf(decl.childForFieldName('parameters') ?? decl.childForFieldName('parameter'));
  element.returnType = typeText(decl.childForFieldName('return_type'));
  for (const parameter of element.parameters) typeReferences(parameter.type, element);
  typeReferences(element.returnType, element);
  calls(body, element);
  return element;
}

/**
 * Where a declaration stands: `outer` carries position and comment (an
 * export or declare wrapper), `decl` is the declaration; its container and
 * its access.
 */
interface Site {
  outer: SyntaxNode;
  decl: SyntaxNode;
  parent: string;
  access: AccessModifier;
}

/** A class or interface member: its own node is both outer and declaration. */
function memberSite(member: SyntaxNode, scope: string, access: AccessModifier = memberAccess(member)): Site {
  return { outer: member, decl: member, parent: scope, access };
}

function draft(
  { outer, decl, parent, access }: Site,
  type: CodeElementType,
  elementName: string,
  signature: string,
): CodeElement {
  return newElement({
    type,
    name: elementName,
    parent,
    access,
    startLine: outer.startPosition.row + 1,
    endLine: (outer === decl ? outer.endPosition.row : Math.max(outer.endPosition.row, decl.endPosition.row)) + 1,
    signature,
    description: commentAbove(outer),
  });
}

function parametersOf(list: SyntaxNode | null): Parameter[] {
  if (!list) return [];
  if (list.type === 'identifier') return [{ name: list.text, type: '' }]; // `x => …`
  const parameters: Parameter[] = [];
  for (const parameter of list.namedChildren) {
    if (parameter.type === 'comment') continue;
    const { name: parameterName, type } = splitDeclaration(parameter.text);
    parameters.push({ name: collapse(parameterName, 80), type });
  }
  return parameters;
}

/** Calls made in a body, by callee name (`f`, `obj.method`), at most MAX_CALLS. */
function calls(body: SyntaxNode | null, element: CodeElement): void {
  if (!body) return;
  let count = 0;
  for (const call of body.descendantsOfType(['call_expression', 'new_expression'])) {
    const callee = call.childForFieldName('function') ?? call.childForFieldName('constructor');
    if (!callee) continue;
    const target = calleeName(callee);
    if (!target) continue;
    addDependency(element, call.type === 'new_expression' ? 'uses' : 'calls', target);
    if (++count >= MAX_CALLS) return;
  }
}

function calleeName(callee: SyntaxNode): string {
  if (callee.type === 'identifier') return callee.text;
  if (callee.type === 'member_expression') {
    const property = callee.childForFieldName('property')?.text ?? '';
    const object = callee.childForFieldName('object');
    const owner =
      object?.type === 'identifier' || object?.type === 'this'
        ? object.text
        : object?.type === 'member_expression'
          ? object.childForFieldName('property')?.text
          : '';
    return owner ? `${owner}.${property}` : property;
  }
  return '';
}

const BUILTIN_TYPES = new Set([
  'Promise',
  'Array',
  'Record',
  'Partial',
  'Readonly',
  'Map',
  'Set',
  'Date',
  'Error',
  'Function',
  'Object',
]);

/**
 * Named types a type expression refers to (`Map<string, Index>` → Index).
 * Read from the text already extracted rather than from the tree: it saves a
 * tree search per signature, the largest cost of extraction in .d.ts files.
 * Type names are capitalised by convention; qualified names keep their
 * qualifier (`ts.Node`).
 */
function typeReferences(typeText: string, element: CodeElement): void {
  if (!typeText) return;
  for (const match of typeText.matchAll(/(?<![\w$.'"])((?:[A-Za-z_$][\w$]*\.)*[A-Z][\w$]*)/g)) {
    const target = match[1]!;
    if (target !== element.name && !BUILTIN_TYPES.has(target) && target.length > 1)
      addDependency(element, 'uses', target);
  }
}

function recordImport(statement: SyntaxNode, out: Extraction): void {
  const source = statement.childForFieldName('source');
  if (source) out.imports.push({ module: unquote(source.text), line: statement.startPosition.row + 1 });
}

function accessorsOf(member: SyntaxNode): ('get' | 'set')[] {
  for (const child of member.children) {
    if (child.type === 'get') return ['get'];
    if (child.type === 'set') return ['set'];
    if (child.type === 'property_identifier' || child.type === '(') break;
  }
  return [];
}

function memberAccess(member: SyntaxNode): AccessModifier {
  for (const child of member.namedChildren) {
    if (child.type === 'accessibility_modifier') return child.text as AccessModifier;
    if (child.type === 'private_property_identifier') return 'private';
  }
  return 'public';
}

/**
 * Splits `readonly name?: Type = default` (a parameter or property signature)
 * at its top-level `:` and `=`, ignoring those nested in brackets, strings and
 * arrows. Cheaper than asking the tree for each part.
 */
export function splitDeclaration(text: string): { name: string; type: string; readonly: boolean } {
  let depth = 0;
  let quote = '';
  let colon = -1;
  let equals = -1;
  for (let i = 0; i < text.length && equals < 0; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'" || ch === '`') quote = ch;
    else if (ch === '(' || ch === '[' || ch === '{' || ch === '<') depth++;
    else if (ch === ')' || ch === ']' || ch === '}' || (ch === '>' && text[i - 1] !== '=')) depth--;
    else if (depth === 0 && ch === ':' && colon < 0) colon = i;
    else if (depth === 0 && ch === '=' && text[i + 1] !== '>' && text[i + 1] !== '=' && text[i - 1] !== '=') equals = i;
  }
  const nameEnd = colon >= 0 ? colon : equals >= 0 ? equals : text.length;
  const head = text.slice(0, nameEnd).trim();
  const modifiers = /^(?:(?:public|private|protected|readonly|override|declare|static)\s+)*/.exec(head)![0];
  const type = colon >= 0 ? text.slice(colon + 1, equals >= 0 ? equals : text.length) : '';
  return {
    name: head.slice(modifiers.length).replace(/\?$/, ''),
    type: collapse(type, 200),
    readonly: /\breadonly\b/.test(modifiers),
  };
}

function typeText(annotation: SyntaxNode | null): string {
  return annotation ? collapse(annotation.text.replace(/^:\s*/, ''), 200) : '';
}

function name(node: SyntaxNode): string {
  return node.childForFieldName('name')?.text ?? '';
}

/** `ns.Base<T>` → `ns.Base`: heritage targets by name, without type arguments. */
function baseName(text: string): string {
  return text.replace(/<[\s\S]*$/, '').trim();
}

function unquote(text: string): string {
  return text.replace(/^['"`]|['"`]$/g, '');
}

function join(parent: string, child: string): string {
  return parent ? `${parent}.${child}` : child;
}
