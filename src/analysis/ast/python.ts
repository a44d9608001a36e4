/** Code elements of Python files, from tree-sitter. */
import { commentAbove, docstringOf } from './comments.js';
import type { SyntaxExtractor } from './extractor.js';
import type { SyntaxNode } from './syntax-node.js';
import { type Extraction, addDependency, collapse, signatureUntil } from './extraction.js';
import { newElement } from '../element.js';
import type { AccessModifier, CodeElement, CodeElementType, Parameter } from '../element-types.js';

const MAX_CALLS = 40;

/** Python's extractor: its summary is the module's docstring. */
export const pythonExtractor: SyntaxExtractor = {
  extract: ({ root }, out) => walkBlock(root.namedChildren, undefined, out),
  summary: docstringOf,
};

/** `owner`: the class whose body this is; undefined at module level. */
function walkBlock(statements: SyntaxNode[], owner: CodeElement | undefined, out: Extraction): void {
  for (const statement of statements) visit(statement, owner, out);
}

function pathOf(owner: CodeElement | undefined): string {
  if (!owner) return '';
  return owner.parent ? `${owner.parent}.${owner.name}` : owner.name;
}

function visit(outer: SyntaxNode, owner: CodeElement | undefined, out: Extraction): void {
  let decl = outer;
  const decorators: string[] = [];
  if (decl.type === 'decorated_definition') {
    for (const child of decl.namedChildren)
      if (child.type === 'decorator') decorators.push(child.text.replace(/^@\s*/, ''));
    decl = decl.childForFieldName('definition') ?? decl;
  }
  switch (decl.type) {
    case 'ERROR':
      // tree-sitter keeps what it could parse under an ERROR node.
      walkBlock(decl.namedChildren, owner, out);
      return;
    case 'import_statement':
    case 'import_from_statement':
      recordImports(decl, out);
      return;
    case 'class_definition':
      classElement(outer, decl, owner, out);
      return;
    case 'function_definition':
      functionElement(outer, decl, owner, decorators, out);
      return;
    case 'expression_statement':
      if (!owner) constantElement(outer, decl, out);
      return;
    default:
      return;
  }
}

function classElement(outer: SyntaxNode, decl: SyntaxNode, owner: CodeElement | undefined, out: Extraction): void {
  const className = decl.childForFieldName('name')?.text ?? '';
  const body = decl.childForFieldName('body');
  const element = draft(outer, decl, 'class', className, pathOf(owner), signatureUntil(outer, body).replace(/:$/, ''));
  element.description = docstringOf(body) || commentAbove(outer);
  for (const base of decl.childForFieldName('superclasses')?.namedChildren ?? []) {
    if (base.type === 'identifier' || base.type === 'attribute') addDependency(element, 'inherits', base.text);
  }
  out.add(element);
  if (body) walkBlock(body.namedChildren, element, out);
}

function functionElement(
  outer: SyntaxNode,
  decl: SyntaxNode,
  owner: CodeElement | undefined,
  decorators: string[],
  out: Extraction,
): void {
  const functionName = decl.childForFieldName('name')?.text ?? '';
  let type: CodeElementType = owner ? 'method' : 'function';
  if (owner && functionName === '__init__') type = 'constructor';
  if (owner && decorators.includes('property')) type = 'property';
  if (owner && decorators.some((d) => d.endsWith('.setter'))) {
    // The setter of a property already reported: mark it settable instead.
    const property = owner.properties.find((p) => p.name === functionName);
    if (property && !property.accessors.includes('set')) property.accessors.push('set');
    return;
  }
  const body = decl.childForFieldName('body');
  const element = draft(outer, decl, type, functionName, pathOf(owner), signatureUntil(decl, body).replace(/:$/, ''));
  element.description = docstringOf(body) || commentAbove(outer);
  element.parameters = parametersOf(decl.childForFieldName('parameters'), owner !== undefined);
  element.returnType = decl.childForFieldName('return_type')?.text ?? '';
  if (type === 'property') owner?.properties.push({ name: functionName, type: element.returnType, accessors: ['get'] });
  if (body) {
    let count = 0;
    for (const call of body.descendantsOfType('call')) {
      const callee = call.childForFieldName('function');
      const target =
        callee?.type === 'identifier' || callee?.type === 'attribute' ? callee.text.replace(/^self\./, '') : '';
      if (target) addDependency(element, 'calls', collapse(target, 80));
      if (++count >= MAX_CALLS) break;
    }
  }
  out.add(element);
}

/** Module-level `NAME = …` (upper case): constants by Python convention. */
function constantElement(outer: SyntaxNode, statement: SyntaxNode, out: Extraction): void {
  const assignment = statement.firstNamedChild;
  if (assignment?.type !== 'assignment') return;
  const left = assignment.childForFieldName('left');
  if (left?.type !== 'identifier' || !/^_?[A-Z][A-Z0-9_]*$/.test(left.text)) return;
  const element = draft(outer, statement, 'constant', left.text, '', collapse(statement.text, 200));
  element.returnType = assignment.childForFieldName('type')?.text ?? '';
  out.add(element);
}

function parametersOf(list: SyntaxNode | null, isMethod: boolean): Parameter[] {
  const parameters: Parameter[] = [];
  for (const parameter of list?.namedChildren ?? []) {
    const nameNode =
      parameter.type === 'identifier' ? parameter : (parameter.childForFieldName('name') ?? parameter.firstNamedChild);
    const parameterName = nameNode?.text ?? parameter.text;
    if (isMethod && parameters.length === 0 && (parameterName === 'self' || parameterName === 'cls')) continue;
    parameters.push({ name: parameterName, type: parameter.childForFieldName('type')?.text ?? '' });
  }
  return parameters;
}

function recordImports(statement: SyntaxNode, out: Extraction): void {
  const line = statement.startPosition.row + 1;
  const from = statement.childForFieldName('module_name');
  if (from) {
    out.imports.push({ module: from.text, line });
    return;
  }
  for (const imported of statement.namedChildren) {
    const module = imported.type === 'aliased_import' ? imported.childForFieldName('name') : imported;
    if (module) out.imports.push({ module: module.text, line });
  }
}

function draft(
  outer: SyntaxNode,
  decl: SyntaxNode,
  type: CodeElementType,
  elementName: string,
  parent: string,
  signature: string,
): CodeElement {
  return newElement({
    type,
    name: elementName,
    parent,
    access: accessOf(elementName),
    startLine: outer.startPosition.row + 1,
    endLine: Math.max(outer.endPosition.row, decl.endPosition.row) + 1,
    signature: collapse(signature, 300),
  });
}

/** Python's convention: `_name` is internal; dunder names are public protocol. */
function accessOf(elementName: string): AccessModifier {
  if (/^__\w+__$/.test(elementName)) return 'public';
  return elementName.startsWith('_') ? 'private' : 'public';
}
