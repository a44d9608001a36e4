import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { analyzeText, type CodeElement, type CodeFile } from '../../src/internal.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/analysis/${name}`, import.meta.url), 'utf8');
const find = (file: CodeFile, name: string, parent = '') => {
  const element = file.elements.find((e) => e.name === name && e.parent === parent);
  if (!element) throw new Error(`no element ${parent ? `${parent}.` : ''}${name}`);
  return element;
};

/** 1-based line of the first line matching `pattern`: an oracle independent of tree-sitter. */
function lineOf(text: string, pattern: RegExp, from = 0): number {
  const lines = text.split('\n');
  for (let i = from; i < lines.length; i++) if (pattern.test(lines[i]!)) return i + 1;
  throw new Error(`no line matches ${pattern}`);
}

/**
 * Where a block that starts at `line` (1-based) ends, in formatted code: the
 * first later line that is a `}` at the start line's indentation.
 */
function closingBraceLine(text: string, line: number): number {
  const lines = text.split('\n');
  const indent = /^\s*/.exec(lines[line - 1]!)![0];
  for (let i = line; i < lines.length; i++) if (new RegExp(`^${indent}\\}`).test(lines[i]!)) return i + 1;
  throw new Error(`no closing brace for line ${line}`);
}

function expectWellFormed(file: CodeFile, lineCount: number) {
  // Declarations can merge (TypeScript interfaces, namespaces): a name may
  // stand for several elements, and a member lies inside one of them.
  const byQualifiedName = new Map<string, CodeElement[]>();
  for (const e of file.elements) {
    const key = e.parent ? `${e.parent}.${e.name}` : e.name;
    byQualifiedName.set(key, [...(byQualifiedName.get(key) ?? []), e]);
  }
  for (const element of file.elements) {
    expect(element.startLine).toBeGreaterThanOrEqual(1);
    expect(element.endLine).toBeGreaterThanOrEqual(element.startLine);
    expect(element.endLine).toBeLessThanOrEqual(lineCount);
    const parents = element.parent ? byQualifiedName.get(element.parent) : undefined;
    if (parents) {
      const inside = parents.some((p) => element.startLine >= p.startLine && element.endLine <= p.endLine);
      expect(inside, `${element.parent}.${element.name} lies inside its parent`).toBe(true);
    }
  }
}

describe('TypeScript: a file of this project (frozen copy of src/native/faiss-index.ts)', () => {
  const text = fixture('faiss-index.ts.txt');
  const file = analyzeText('src/native/faiss-index.ts', text);

  it('is a complete AST analysis', () => {
    expect(file.language).toBe('typescript');
    expect(file.source).toBe('ast');
    expect(file.warnings).toEqual([]);
    expect(file.summary).toMatch(/^FaissIndex: a FAISS index in this process/);
    expect(file.imports).toEqual([
      { module: './errors.js', line: lineOf(text, /from '\.\/errors\.js'/) },
      { module: './addon.js', line: lineOf(text, /from '\.\/addon\.js'/) },
      { module: './validate.js', line: lineOf(text, /^} from '\.\/validate\.js'/) - 12 },
    ]);
    expectWellFormed(file, text.split('\n').length);
  });

  it('finds the class with its exact range and its members as elements of their own', () => {
    const cls = find(file, 'FaissIndex');
    const start = lineOf(text, /^export class FaissIndex/);
    expect(cls).toMatchObject({
      type: 'class',
      access: 'public',
      startLine: start,
      endLine: closingBraceLine(text, start),
    });
    expect(cls.signature).toBe('export class FaissIndex');
    const members = file.elements.filter((e) => e.parent === 'FaissIndex');
    expect(members.map((m) => m.name)).toEqual(
      expect.arrayContaining(['create', 'read', 'search', 'removeIds', 'close', 'd', 'ntotal', '#native']),
    );
    expect(cls.properties.map((p) => p.name)).toEqual(expect.arrayContaining(['#native', 'd', 'ntotal', 'isTrained']));
  });

  it('reads a method: signature, parameters, return type, JSDoc description, calls', () => {
    const search = find(file, 'search', 'FaissIndex');
    const start = lineOf(text, /^ {2}async search\(/);
    expect(search).toMatchObject({
      type: 'method',
      access: 'public',
      startLine: start,
      endLine: closingBraceLine(text, start),
      signature: 'async search(queries: Float32Array, k: number, params: SearchParams = {}): Promise<SearchResult>',
      description: 'k nearest neighbours of each query row; see {@link SearchResult}.',
      parameters: [
        { name: 'queries', type: 'Float32Array' },
        { name: 'k', type: 'number' },
        { name: 'params', type: 'SearchParams' },
      ],
      returnType: 'Promise<SearchResult>',
    });
    expect(search.dependencies).toEqual(
      expect.arrayContaining([
        { type: 'calls', target: 'checkVectors' },
        { type: 'calls', target: 'checkInteger' },
        { type: 'uses', target: 'SearchParams' },
        { type: 'uses', target: 'SearchResult' },
      ]),
    );
  });

  it('tells constructors, getters, private members and static factories apart', () => {
    expect(find(file, 'constructor', 'FaissIndex')).toMatchObject({ type: 'constructor', access: 'private' });
    expect(find(file, 'ntotal', 'FaissIndex')).toMatchObject({
      type: 'property',
      returnType: 'number',
      description: 'Number of vectors, as of the last completed add or removal.',
    });
    expect(find(file, '#native', 'FaissIndex')).toMatchObject({
      type: 'field',
      access: 'private',
      returnType: 'NativeIndexHandle',
    });
    expect(find(file, 'create', 'FaissIndex').signature).toMatch(/^static async create\(options: CreateIndexOptions\)/);
  });

  it('reads interfaces with their properties', () => {
    const options = find(file, 'CreateIndexOptions');
    expect(options.type).toBe('interface');
    expect(options.properties.map((p) => `${p.name}: ${p.type}`)).toEqual([
      'dimension: number',
      'description: string',
      'metric: Metric',
      'ids: boolean',
      'device: Device',
    ]);
    expect(find(file, 'SearchResult').description).toMatch(/^Row-major results for `nq` queries/);
  });
});

describe("TypeScript: the compiler's lib.es5.d.ts", () => {
  const path = createRequire(import.meta.url).resolve('typescript/lib/lib.es5.d.ts');
  const text = readFileSync(path, 'utf8');
  const file = analyzeText(path, text);

  it.each(['Array<T>', 'ReadonlyArray<T>', 'PromiseLike<T>', 'String', 'ArrayBuffer'])(
    'interface %s: exact range',
    (declared) => {
      const start = lineOf(text, new RegExp(`^interface ${declared.replace(/[<>]/g, '\\$&')} \\{`));
      const element = find(file, declared.replace(/<.*/, ''));
      expect(element).toMatchObject({
        type: 'interface',
        startLine: start,
        endLine: closingBraceLine(text, start),
        access: 'public',
      });
    },
  );

  it('interface methods are elements with their doc comment, parameters and return type', () => {
    const push = find(file, 'push', 'Array');
    expect(push).toMatchObject({
      type: 'method',
      startLine: lineOf(text, /^\s+push\(\.\.\.items: T\[\]\): number;/, lineOf(text, /^interface Array<T> \{/)),
      description: 'Appends new elements to the end of an array, and returns the new length of the array.',
      parameters: [{ name: '...items', type: 'T[]' }],
      returnType: 'number',
    });
  });

  it('declared functions are public API, with descriptions', () => {
    expect(find(file, 'parseInt')).toMatchObject({
      type: 'function',
      access: 'public',
      startLine: lineOf(text, /^declare function parseInt/),
      description: 'Converts a string to an integer.',
      parameters: [
        { name: 'string', type: 'string' },
        { name: 'radix', type: 'number' },
      ],
    });
    expectWellFormed(file, text.split('\n').length);
    expect(file.elements.length).toBeGreaterThan(500);
  });
});

describe('Python: gyp MSVSUserFile.py', () => {
  const text = fixture('msvs_user_file.py');
  const file = analyzeText('gyp/MSVSUserFile.py', text);

  it('module summary, imports, functions, class and methods with docstrings', () => {
    expect(file.language).toBe('python');
    expect(file.summary).toBe('Visual Studio user preferences file writer.');
    expect(file.imports).toEqual([
      { module: 'os', line: lineOf(text, /^import os/) },
      { module: 're', line: lineOf(text, /^import re/) },
      { module: 'socket', line: lineOf(text, /^import socket/) },
      { module: 'gyp', line: lineOf(text, /^from gyp import/) },
    ]);
    expect(find(file, '_FindCommandInPath')).toMatchObject({
      type: 'function',
      access: 'private',
      startLine: lineOf(text, /^def _FindCommandInPath/),
      parameters: [{ name: 'command', type: '' }],
    });
    const writer = find(file, 'Writer');
    expect(writer).toMatchObject({
      type: 'class',
      startLine: lineOf(text, /^class Writer/),
      endLine: text.trimEnd().split('\n').length,
      description: 'Visual Studio XML user user file writer.',
    });
    expect(find(file, '__init__', 'Writer')).toMatchObject({
      type: 'constructor',
      description: 'Initializes the user file.',
      parameters: [
        { name: 'user_file_path', type: '' },
        { name: 'version', type: '' },
        { name: 'name', type: '' },
      ],
    });
    const debug = find(file, 'AddDebugSettings', 'Writer');
    expect(debug.startLine).toBe(lineOf(text, /^ {4}def AddDebugSettings/));
    expect(debug.endLine).toBe(lineOf(text, /^ {4}def WriteIfChanged/) - 2);
    expectWellFormed(file, text.split('\n').length);
  });
});

describe('TSX and JavaScript', () => {
  it('parses components and arrow functions in TSX', () => {
    const text = [
      "import React from 'react';",
      '/** Shows a greeting. */',
      'export const Hello = ({ name }: { name: string }) => <div>Hello {name}</div>;',
      'export default function App() {',
      '  return <Hello name="x" />;',
      '}',
    ].join('\n');
    const file = analyzeText('app.tsx', text);
    expect(file.language).toBe('tsx');
    expect(file.warnings).toEqual([]);
    expect(find(file, 'Hello')).toMatchObject({
      type: 'function',
      startLine: 3,
      endLine: 3,
      description: 'Shows a greeting.',
    });
    expect(find(file, 'App')).toMatchObject({ type: 'function', startLine: 4, endLine: 6 });
  });

  it('reads CommonJS: require imports, classes, functions', () => {
    const text =
      "const fs = require('fs');\nclass A extends B { m() { return fs.readFileSync('x'); } }\nfunction f(a, b = 2, ...rest) {}\n";
    const file = analyzeText('x.cjs', text);
    expect(file.imports).toEqual([{ module: 'fs', line: 1 }]);
    expect(find(file, 'A').dependencies).toEqual([{ type: 'inherits', target: 'B' }]);
    expect(find(file, 'm', 'A').dependencies).toEqual([{ type: 'calls', target: 'fs.readFileSync' }]);
    expect(find(file, 'f').parameters.map((p) => p.name)).toEqual(['a', 'b', '...rest']);
  });

  it('reads functions assigned to members, the way CommonJS modules define their API', () => {
    const text = [
      '/** Sends a response. */',
      'res.send = function send(body) {',
      '  return this.end(body);',
      '};',
      'Router.prototype.route = function (path) { return new Route(path); };',
      'exports.parse = (text) => JSON.parse(text);',
      'module.exports = function createApplication() {};',
      'res.locals = {};',
      'a[b] = function () {};',
    ].join('\n');
    const file = analyzeText('lib/response.js', text);
    expect(find(file, 'send', 'res')).toMatchObject({
      type: 'method',
      startLine: 2,
      endLine: 4,
      description: 'Sends a response.',
      signature: 'res.send = function send(body)',
    });
    expect(find(file, 'route', 'Router')).toMatchObject({
      type: 'method',
      startLine: 5,
      parameters: [{ name: 'path' }],
    });
    expect(find(file, 'parse')).toMatchObject({ type: 'function', parent: '', startLine: 6 });
    expect(find(file, 'createApplication')).toMatchObject({ type: 'function', startLine: 7 });
    // Values that are not functions, and computed members, define nothing.
    expect(file.elements).toHaveLength(4);
  });

  it("finds every `res.x = function` of express's response.js (node_modules)", () => {
    const path = createRequire(import.meta.url).resolve('express/lib/response.js');
    const text = readFileSync(path, 'utf8');
    // `res.contentType =\nres.type = function contentType(type)`: both names.
    const assigned = [...text.matchAll(/^res\.(\w+) =(?=\s*(?:function|res\.))/gm)].map((match) => match[1]);
    const file = analyzeText('lib/response.js', text);
    expect(assigned.length).toBeGreaterThan(15);
    expect(file.elements.filter((element) => element.parent === 'res').map((element) => element.name)).toEqual(
      assigned,
    );
  });
});

describe('splitDeclaration (parameters and property signatures read from their text)', () => {
  it.each([
    ['x: number', { name: 'x', type: 'number', readonly: false }],
    ['radix?: number', { name: 'radix', type: 'number', readonly: false }],
    ['params: SearchParams = {}', { name: 'params', type: 'SearchParams', readonly: false }],
    [
      'cb: (a: string, b?: number) => Map<string, () => void>',
      { name: 'cb', type: '(a: string, b?: number) => Map<string, () => void>', readonly: false },
    ],
    ['readonly tags: readonly string[]', { name: 'tags', type: 'readonly string[]', readonly: true }],
    ["private readonly sep: ':' | '=' = ':'", { name: 'sep', type: "':' | '='", readonly: true }],
    ['{ a, b }: { a: number; b: string }', { name: '{ a, b }', type: '{ a: number; b: string }', readonly: false }],
    ['b = 2', { name: 'b', type: '', readonly: false }],
    ['...rest', { name: '...rest', type: '', readonly: false }],
    ['flag: x >= 1 ? A : B', { name: 'flag', type: 'x >= 1 ? A : B', readonly: false }],
  ])('%s', async (text, expected) => {
    const { splitDeclaration } = await import('../../src/analysis/ast/typescript.js');
    expect(splitDeclaration(text)).toEqual(expected);
  });
});
