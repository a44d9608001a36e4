import { describe, expect, it } from 'vitest';
import { analyzeText } from '../../src/analysis/analyzer.js';
import { coverFile } from '../../src/vector/coverage.js';
import { buildDocuments } from '../../src/vector/document.js';

const cover = (path: string, text: string) => coverFile(analyzeText(path, text), text.split('\n'));

describe('every line of a file is searchable', () => {
  it("gives the file's summary (a module docstring, Rust's //! docs) to the chunk that holds it", () => {
    const python = cover(
      'blocking.py',
      [
        '"""Runs blocking code on a thread pool."""',
        'import threading',
        '',
        'def spawn(fn):',
        '    return threading.Thread(target=fn)',
      ].join('\n'),
    );
    const pythonChunks = python.filter((c) => c.element.type === 'chunk');
    expect(pythonChunks.map((c) => [c.element.startLine, c.element.description])).toEqual([
      [1, 'Runs blocking code on a thread pool.'],
    ]);
    const rust = cover(
      'blocking.rs',
      [
        '//! Runs blocking code on a thread pool.',
        '',
        'use std::thread;',
        '',
        'pub fn spawn() {}',
        '',
        'use std::sync::Mutex;',
        '',
        'const LIMIT: usize = 512;',
      ].join('\n'),
    );
    const rustChunks = rust.filter((c) => c.element.type === 'chunk');
    // Only the chunk at the top: the one further down (the second `use`) describes nothing.
    expect(rustChunks.map((c) => [c.element.startLine, c.element.description])).toEqual([
      [1, 'Runs blocking code on a thread pool.'],
      [7, ''],
    ]);
  });

  it('gives code outside elements chunks of its own: imports, exports, assignments', () => {
    // express's style: module-level statements, and functions assigned to properties.
    const text = [
      "'use strict';",
      "var http = require('node:http');",
      '',
      'var res = Object.create(http.ServerResponse.prototype);',
      'module.exports = res;',
      '',
      '/** Sends a response. */',
      'export function send(body) {',
      '  return res.end(body);',
      '}',
      '',
      'res.set = function set(field, val) {',
      "  this.setHeader('Access-Control-Allow-Origin', val);",
      '};',
      '',
      "http.globalAgent.keepAliveMsecs = 'KEEP_ALIVE';",
    ].join('\n');
    const covered = cover('lib/response.js', text);
    const chunks = covered.filter((c) => c.element.type === 'chunk');
    expect(chunks.map((c) => [c.element.startLine, c.element.endLine])).toEqual([
      [1, 5],
      [16, 16],
    ]);
    expect(chunks[1]!.ownText).toContain('KEEP_ALIVE');
    expect(chunks.every((c) => c.element.name === 'response.js')).toBe(true);
    // Each function holds its own lines, and a doc comment makes no chunk.
    const send = covered.find((c) => c.element.name === 'send')!;
    expect(send.ownText).toBe('export function send(body) {\n  return res.end(body);\n}');
    expect(covered.find((c) => c.element.name === 'set')!.ownText).toContain('Access-Control-Allow-Origin');
    expect(chunks.some((c) => c.ownText.includes('Sends a response'))).toBe(false);
  });

  it('a file with no declaration is chunks from top to bottom', () => {
    const text = Array.from({ length: 100 }, (_, i) => `export * from './module${i}.js';`).join('\n');
    const covered = cover('src/index.ts', text);
    expect(covered.every((c) => c.element.type === 'chunk')).toBe(true);
    // Cut by the limit of 40 lines, and together they cover every line once.
    expect(covered.map((c) => [c.element.startLine, c.element.endLine])).toEqual([
      [1, 40],
      [41, 80],
      [81, 100],
    ]);
  });

  it('cuts a long run at a blank line in its second half', () => {
    const block = (n: number, from: number) => Array.from({ length: n }, (_, i) => `setting${from + i} = ${i}`);
    const text = [...block(30, 0), '', ...block(30, 30)].join('\n');
    const covered = cover('config.py', text);
    expect(covered.map((c) => [c.element.startLine, c.element.endLine])).toEqual([
      [1, 30],
      [32, 61],
    ]);
  });

  it('gives each line to its innermost element: a class keeps its header, its methods their bodies', () => {
    const text = [
      'class Cache {',
      '  entries = new Map();',
      '  get(key) {',
      '    return this.entries.get(key);',
      '  }',
      '}',
    ].join('\n');
    const covered = cover('cache.ts', text);
    const byName = new Map(
      covered.map((c) => [c.element.parent ? `${c.element.parent}.${c.element.name}` : c.element.name, c.ownText]),
    );
    expect(byName.get('Cache.get')).toBe('  get(key) {\n    return this.entries.get(key);\n  }');
    expect(byName.get('Cache')).toBe('class Cache {\n}');
    expect(covered.some((c) => c.element.type === 'chunk')).toBe(false);
  });

  it('text files keep their own pieces, which cover them already', () => {
    const text = '# Title\n\nIntro.\n\n## Usage\n\nRun it.\n';
    const covered = cover('README.md', text);
    expect(covered.map((c) => c.element.type)).toEqual(['section', 'section']);
    expect(covered[1]!.ownText).toContain('Run it.');
  });

  it('documents carry their own code, and a change of code alone changes the hash', () => {
    const before = 'export function f() {\n  return 1;\n}\n';
    const after = 'export function f() {\n  return 2;\n}\n';
    const [a] = buildDocuments(analyzeText('f.ts', before), before.split('\n'));
    const [b] = buildDocuments(analyzeText('f.ts', after), after.split('\n'));
    expect(a!.code).toContain('return 1');
    expect(a!.hash).not.toBe(b!.hash);
  });
});
