import { mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  Analyzer,
  analyzeText,
  isSkipped,
  type AnalysisEvent,
  type AnalysisResult,
  type CodeFile,
} from '../../src/internal.js';

const dir = mkdtempSync(join(tmpdir(), 'ocvector-analysis-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function analyzer() {
  const events: AnalysisEvent[] = [];
  return { events, analyzer: new Analyzer({ onEvent: (e) => events.push(e) }) };
}

async function analyze(
  name: string,
  content: string | Uint8Array,
): Promise<{ result: AnalysisResult; events: AnalysisEvent[] }> {
  const path = join(dir, name);
  writeFileSync(path, content);
  const { events, analyzer: a } = analyzer();
  return { result: await a.analyzeFile(path), events };
}

function asFile(result: AnalysisResult): CodeFile {
  if (isSkipped(result)) throw new Error(`skipped: ${result.skipped} (${result.detail})`);
  return result;
}

describe('bad files end in a clear result, never an exception', () => {
  it('an empty file is skipped as empty', async () => {
    const { result, events } = await analyze('empty.ts', '');
    expect(result).toMatchObject({ skipped: 'empty' });
    expect(events).toEqual([expect.objectContaining({ type: 'skipped', reason: 'empty' })]);
  });

  it('a binary file is skipped as binary', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    expect((await analyze('image.ts', png)).result).toMatchObject({ skipped: 'binary' });
    const nodeAddon = readFileSync(new URL('../../build/Release/ocvector.node', import.meta.url)).subarray(
      0,
      64 * 1024,
    );
    expect((await analyze('addon.js', nodeAddon)).result).toMatchObject({ skipped: 'binary' });
  });

  it('invalid UTF-8 is decoded with replacement characters, lines intact, and reported', async () => {
    const bytes = Buffer.concat([
      Buffer.from('// caf'),
      Buffer.from([0xe9]),
      Buffer.from('\nexport function f() {}\n\nexport class C {}\n'),
    ]);
    const { result, events } = await analyze('latin1.ts', bytes);
    const file = asFile(result);
    expect(file.elements.map((e) => [e.name, e.startLine])).toEqual([
      ['f', 2],
      ['C', 4],
    ]);
    expect(file.warnings).toEqual([expect.stringMatching(/invalid UTF-8/)]);
    expect(events).toEqual([
      expect.objectContaining({ type: 'warning', message: expect.stringMatching(/invalid UTF-8/) }),
    ]);
  });

  it('a 5 MB file is skipped without being read, or analysed when the limit allows it', async () => {
    const line = 'export const VALUE_ = 1;\n';
    const big = Array.from({ length: Math.ceil((5 << 20) / line.length) }, (_, i) => line.replace('_', `_${i}`)).join(
      '',
    );
    const path = join(dir, 'big.ts');
    writeFileSync(path, big);
    const { events, analyzer: a } = analyzer();
    expect(await a.analyzeFile(path)).toMatchObject({
      skipped: 'too-large',
      detail: expect.stringMatching(/over the limit of 1048576/),
    });
    expect(events[0]).toMatchObject({ type: 'skipped', reason: 'too-large' });
    const roomy = new Analyzer({ limits: { maxBytes: 8 << 20 } });
    const file = asFile(await roomy.analyzeFile(path));
    expect(file.elements.length).toBe(big.split('\n').length - 1);
    expect(file.elements.at(-1)).toMatchObject({ type: 'constant', startLine: file.elements.length });
  });

  it('a 20,000-line function is one element with its exact range', () => {
    const body = Array.from({ length: 19_998 }, (_, i) => `  total += step(${i});`).join('\n');
    const text = `export function huge(step: (n: number) => number): number {\n${body}\n}\n`;
    const file = analyzeText('huge.ts', text);
    expect(file.elements).toHaveLength(1);
    expect(file.elements[0]).toMatchObject({ name: 'huge', startLine: 1, endLine: 20_000 });
    expect(file.elements[0]!.dependencies).toEqual([{ type: 'calls', target: 'step' }]);
  });

  it('syntax errors: the good elements are still found, and the errors reported', () => {
    const text = [
      'export function good(a: number): number {',
      '  return a + 1;',
      '}',
      '',
      'export function broken(b: string {',
      '  return b +;',
      '',
      'export class Fine {',
      '  ok(): void {}',
      '}',
      '',
      'export const after = (x: number) => x * 2;',
    ].join('\n');
    const file = analyzeText('broken.ts', text);
    expect(file.warnings).toEqual([expect.stringMatching(/syntax errors/)]);
    const names = file.elements.map((e) => e.name);
    expect(names).toContain('good');
    expect(names).toContain('Fine');
    expect(file.elements.find((e) => e.name === 'good')).toMatchObject({ startLine: 1, endLine: 3 });
    for (const e of file.elements) expect(e.endLine).toBeLessThanOrEqual(12);
  });

  it('Python with syntax errors keeps its good definitions', () => {
    const file = analyzeText(
      'broken.py',
      'def good(x):\n    return x\n\ndef bad(:\n    pass\n\nclass Kept:\n    def m(self):\n        return 1\n',
    );
    expect(file.elements.map((e) => e.name)).toEqual(expect.arrayContaining(['good', 'Kept', 'm']));
    expect(file.warnings).toEqual([expect.stringMatching(/syntax errors/)]);
  });

  it('minified and generated files are skipped with the reason', async () => {
    // A minified-style bundle: one very long line.
    const minified = `!function(){${'var a=1,b=2;function c(d){return d+a+b}'.repeat(200)}}();\n`;
    await expect(new Analyzer().analyzeBytes('bundle.min.js', Buffer.from(minified))).resolves.toMatchObject({
      skipped: 'minified',
    });
    const generated = '// Code generated by protoc-gen-ts. DO NOT EDIT.\nexport class Message {}\n';
    await expect(new Analyzer().analyzeBytes('msg_pb.ts', Buffer.from(generated))).resolves.toMatchObject({
      skipped: 'generated',
    });
  });

  it('a directory, a missing file and an unreadable file are skipped as unreadable', async () => {
    const { analyzer: a } = analyzer();
    mkdirSync(join(dir, 'folder.ts'));
    expect(await a.analyzeFile(join(dir, 'folder.ts'))).toMatchObject({
      skipped: 'unreadable',
      detail: 'not a regular file',
    });
    expect(await a.analyzeFile(join(dir, 'missing.ts'))).toMatchObject({
      skipped: 'unreadable',
      detail: expect.stringMatching(/ENOENT/),
    });
    const locked = join(dir, 'locked.ts');
    writeFileSync(locked, 'export const A = 1;');
    chmodSync(locked, 0);
    const result = await a.analyzeFile(locked);
    // root reads anything; another user gets EACCES. Either way, no throw.
    expect(isSkipped(result) ? result.skipped : 'read').toMatch(/unreadable|read/);
  });
});

describe('files that are not code', () => {
  it('Markdown: one element per h1-h3 section, with the header path', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const file = analyzeText('README.md', readme);
    expect(file.source).toBe('text');
    const quickStart = file.elements.find((e) => e.name === 'Quick start')!;
    const lines = readme.split('\n');
    expect(lines[quickStart.startLine - 1]).toBe('## Quick start');
    expect(quickStart).toMatchObject({ type: 'section', parent: 'ocvector', signature: '## Quick start' });
    expect(lines[quickStart.endLine]).toMatch(/^$|^## /);
    // Headers inside fenced code blocks are not sections.
    const fenced = analyzeText('x.md', '# Title\n\n```sh\n# not a header\n```\n\n## Real\ntext\n');
    expect(fenced.elements.map((e) => [e.name, e.parent, e.startLine, e.endLine])).toEqual([
      ['Title', '', 1, 5],
      ['Real', 'Title', 7, 8],
    ]);
  });

  it('JSON, YAML and TOML: one document each, with its top-level keys', () => {
    const pkg = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    const json = analyzeText('package.json', pkg);
    expect(json.elements).toHaveLength(1);
    expect(json.elements[0]).toMatchObject({
      type: 'document',
      startLine: 1,
      endLine: pkg.trimEnd().split('\n').length,
    });
    expect(json.elements[0]!.properties.map((p) => p.name)).toEqual(Object.keys(JSON.parse(pkg)));
    expect(
      analyzeText('c.yaml', 'name: x\nlist:\n  - a\nother: 2\n').elements[0]!.properties.map((p) => p.name),
    ).toEqual(['name', 'list', 'other']);
    expect(analyzeText('c.toml', '[package]\nname = "x"\n[deps]\n').elements[0]!.properties.map((p) => p.name)).toEqual(
      ['package', 'deps'],
    );
  });

  it('other text: line-aligned windows of about 1,000 characters overlapping by about 200', () => {
    const text = Array.from({ length: 200 }, (_, i) => `line ${i} ${'x'.repeat(40)}`).join('\n');
    const windows = analyzeText('notes.txt', text).elements;
    expect(windows.length).toBeGreaterThan(5);
    expect(windows[0]!.startLine).toBe(1);
    expect(windows.at(-1)!.endLine).toBe(200);
    for (let i = 1; i < windows.length; i++) {
      const overlapLines = windows[i - 1]!.endLine - windows[i]!.startLine + 1;
      expect(overlapLines * 49).toBeGreaterThan(100);
      expect(overlapLines * 49).toBeLessThanOrEqual(250);
    }
  });
});
