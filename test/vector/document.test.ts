import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeText } from '../../src/analysis/analyzer.js';
import { buildDocuments } from '../../src/vector/document.js';

const FIXTURE = new URL('../fixtures/analysis/faiss-index.ts.txt', import.meta.url);

describe('element documents', () => {
  const text = readFileSync(FIXTURE, 'utf8');
  const lines = text.split('\n');
  const file = analyzeText('src/native/faiss-index.ts', text);
  const documents = buildDocuments(file, lines);
  const byName = (name: string) => documents.find((d) => d.text.split('\n')[0]!.endsWith(`: ${name}`))!;

  it('follows the original format, leaving out lines with nothing to say', () => {
    const search = byName('FaissIndex.search');
    const [header, access, path, span, ...rest] = search.text.split('\n');
    expect(header).toBe('method: FaissIndex.search');
    expect(access).toBe('Access: public');
    expect(path).toBe('File: src/native/faiss-index.ts');
    expect(span).toMatch(/^Lines: \d+-\d+$/);
    expect(rest.join('\n')).toMatch(
      /^Signature: async search\(queries: Float32Array, k: number, params: SearchParams = \{\}\): Promise<SearchResult>\nDescription: k nearest neighbours/,
    );
    expect(search.text).toMatch(/\nParameters: queries: Float32Array, k: number, params: SearchParams\n/);
    expect(search.text).toMatch(/\nReturns: Promise<SearchResult>\n/);
    expect(search.text).toMatch(/\nCode:\nasync search\(/); // dedented
    const close = byName('FaissIndex.close');
    expect(close.text).not.toMatch(/\nParameters:/);
  });

  it('cuts snippets by element type', () => {
    const cls = byName('FaissIndex');
    const code = cls.text.slice(cls.text.indexOf('\nCode:\n') + 7);
    // The class shows its declaration and fields, and stops before its first method.
    expect(code).toMatch(/^export class FaissIndex \{/);
    expect(code).not.toMatch(/static async create/);
    expect(code).toMatch(/… \(\d+ more lines\)$/);
    const property = documents.find((d) => d.element.type === 'property')!;
    const propertyCode = property.text.slice(property.text.indexOf('\nCode:\n') + 7).split('\n');
    expect(propertyCode.length).toBeLessThanOrEqual(property.element.endLine - property.element.startLine + 1);
  });

  it('cuts long functions at 100 lines with a marker, and long lines', () => {
    const body = Array.from({ length: 150 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const source = `export function long(): void {\n${body}\n  const wide = "${'w'.repeat(1000)}";\n}\n`;
    const [doc] = buildDocuments(analyzeText('long.ts', source), source.split('\n'));
    const code = doc!.text.slice(doc!.text.indexOf('\nCode:\n') + 7).split('\n');
    expect(code).toHaveLength(101);
    expect(code.at(-1)).toBe('… (53 more lines)');
    const [wide] = buildDocuments(analyzeText('w.ts', `export const wide = "${'w'.repeat(1000)}";\n`), [
      `export const wide = "${'w'.repeat(1000)}";`,
    ]);
    expect(wide!.text.length).toBeLessThan(600);
  });

  it('hashes the embedded text, which leaves out line numbers: a moved element keeps its hash', () => {
    const moved = buildDocuments(analyzeText('src/native/faiss-index.ts', `// one\n// two\n${text}`), [
      '// one',
      '// two',
      ...lines,
    ]);
    const before = new Map(documents.map((d) => [d.text.split('\n')[0], d]));
    // Chunks hold the lines above the first element, which did change.
    for (const document of moved.filter((d) => d.element.type !== 'chunk')) {
      const old = before.get(document.text.split('\n')[0])!;
      expect(document.hash).toBe(old.hash);
      expect(document.text).not.toBe(old.text);
      expect(document.embeddingText).not.toMatch(/\nLines: /);
    }
  });
});
