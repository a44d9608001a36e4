/** Code elements of Python files, from tree-sitter. */
import { commentAbove, docstringOf } from './comments.js';
import type { SyntaxNode } from './parsers.js';
import { type ElementDraft, type Extraction, addDependency, collapse, signatureUntil } from './extraction.js';
import type { AccessModifier, CodeElementType, Parameter } from '../types.js';

const MAX_CALLS = 40;

export function extractPython(root: SyntaxNode, out: Extraction): void {
  walkBlock(root.namedChildren, '', false, out);
}

function walkBlock(statements: SyntaxNode[], parent: string, inClass: boolean, out: Extraction): void {
  for (const statement of statements) visit(statement, parent, inClass, out);
}

function qualified(element: ElementDraft): string {
  return element.parent ? `${element.parent}.${element.name}` : element.name;
}

function visit(outer: SyntaxNode, parent: string, inClass: boolean, out: Extraction): ElementDraft | undefined {
  let decl = outer;
  const decorators: string[] = [];
  if (decl.type === 'decorated_definition') {
    for (const child of decl.namedChildren) if (child.type === 'decorator') decorators.push(child.text.replace(/^@\s*/, ''));
    decl = decl.childForFieldName('definition') ?? decl;
  }
  switch (decl.type) {
    case 'ERROR':
      // tree-sitter keeps what it could parse under an ERROR node.
      walkBlock(decl.namedChildren, parent, inClass, out);
      return undefined;
    case 'import_statement':
    case 'import_from_statement':
      recordImports(decl, out);
      return undefined;
    case 'class_definition':
      return classElement(outer, decl, parent, out);
    case 'function_definition':
      return functionElement(outer, decl, parent, inClass, decorators, out);
    case 'expression_statement':
      if (!inClass && parent === '') constantElement(outer, decl, out);
      return undefined;
    default:
      return undefined;
  }
}

function classElement(outer: SyntaxNode, decl: SyntaxNode, parent: string, out: Extraction): ElementDraft {
  const className = decl.childForFieldName('name')?.text ?? '';
  const body = decl.childForFieldName('body');
  const element = draft(outer, decl, 'class', className, parent, signatureUntil(outer, body).replace(/:$/, ''));
  element.description = docstringOf(body) || commentAbove(outer);
  for (const base of decl.childForFieldName('superclasses')?.namedChildren ?? []) {
    if (base.type === 'identifier' || base.type === 'attribute') addDependency(element, 'inherits', base.text);
  }
  out.add(element);
  if (body) walkBlock(body.namedChildren, parent ? `${parent}.${className}` : className, true, out);
  return element;
}

function functionElement(
  outer: SyntaxNode,
  decl: SyntaxNode,
  parent: string,
  inClass: boolean,
  decorators: string[],
  out: Extraction,
): ElementDraft | undefined {
  const functionName = decl.childForFieldName('name')?.text ?? '';
  let type: CodeElementType = inClass ? 'method' : 'function';
  if (inClass && functionName === '__init__') type = 'constructor';
  if (inClass && decorators.includes('property')) type = 'property';
  const owner = inClass ? out.elements.findLast((e) => e.type === 'class' && qualified(e) === parent) : undefined;
  if (owner && decorators.some((d) => d.endsWith('.setter'))) {
    // The setter of a property already reported: mark it settable instead.
    const property = owner.properties.find((p) => p.name === functionName);
    if (property && !property.accessors.includes('set')) property.accessors.push('set');
    return undefined;
  }
  const body = decl.childForFieldName('body');
  const element = draft(outer, decl, type, functionName, parent, signatureUntil(decl, body).replace(/:$/, ''));
  element.description = docstringOf(body) || commentAbove(outer);
  element.parameters = parametersOf(decl.childForFieldName('parameters'), inClass);
  element.returnType = decl.childForFieldName('return_type')?.text ?? '';
  if (type === 'property') owner?.properties.push({ name: functionName, type: element.returnType, accessors: ['get'] });
  if (body) {
    let count = 0;
    for (const call of body.descendantsOfType('call')) {
      const callee = call.childForFieldName('function');
      const target = callee?.type === 'identifier' || callee?.type === 'attribute' ? callee.text.replace(/^self\./, '') : '';
      if (target) addDependency(element, 'calls', collapse(target, 80));
      if (++count >= MAX_CALLS) break;
    }
  }
  out.add(element);
  return element;
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

function parametersOf(list: SyntaxNode | null, inClass: boolean): Parameter[] {
  const parameters: Parameter[] = [];
  for (const parameter of list?.namedChildren ?? []) {
    const nameNode = parameter.type === 'identifier' ? parameter : parameter.childForFieldName('name') ?? parameter.firstNamedChild;
    const parameterName = nameNode?.text ?? parameter.text;
    if (inClass && parameters.length === 0 && (parameterName === 'self' || parameterName === 'cls')) continue;
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

function draft(outer: SyntaxNode, decl: SyntaxNode, type: CodeElementType, elementName: string, parent: string, signature: string): ElementDraft {
  return {
    type,
    name: elementName,
    parent,
    access: accessOf(elementName),
    startLine: outer.startPosition.row + 1,
    endLine: Math.max(outer.endPosition.row, decl.endPosition.row) + 1,
    signature: collapse(signature, 300),
    description: '',
    parameters: [],
    returnType: '',
    properties: [],
    dependencies: [],
  };
}

/** Python's convention: `_name` is internal; dunder names are public protocol. */
function accessOf(elementName: string): AccessModifier {
  if (/^__\w+__$/.test(elementName)) return 'public';
  return elementName.startsWith('_') ? 'private' : 'public';
}
