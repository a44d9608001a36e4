/**
 * Errors in one style (docs/architecture.md, "Errors"): every error that
 * leaves a layer is that layer's one class (or a subclass of it that carries
 * more), with a code its type lists; nothing throws the bare base class. Read
 * from the sources, so that a new throw is checked the day it is written.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));
const ARCHITECTURE = fileURLToPath(new URL('../docs/architecture.md', import.meta.url));

/** The one error class of each layer that has one, as docs/architecture.md lists them. */
const LAYER_CLASSES = [
  'FilesError',
  'FaissError',
  'AnalysisError',
  'EmbedderError',
  'StoreError',
  'SearchError',
  'IndexingError',
  'EvaluationError',
  'UsageError',
];

/**
 * Thrown, and never an OcvectorError, each for its reason. A program's own
 * mistake in an argument (an option out of range, an empty list) is a
 * TypeError or RangeError, as in Node's own APIs; the others are signals
 * caught before they leave their layer.
 */
const NOT_OCVECTOR_ERRORS: Record<string, string> = {
  TypeError: "an argument of the wrong kind, from the calling program's code",
  RangeError: "an argument out of range, from the calling program's code",
  HelpShown: 'cli: help or the version was printed; exit 0',
  Fallback: 'analysis: a model answer the enricher falls back from, caught in model-enricher.ts',
  HttpStatusError: "models: read by describeServerFailure into the embedder's or the enricher's own error",
  ResponseTooLargeError: "models: read by describeServerFailure into the embedder's or the enricher's own error",
  UnusableAnswerError: "models: read by describeServerFailure into the enricher's fallback",
};

interface Source {
  path: string;
  text: string;
}

function sources(dir: string): Source[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    if (!entry.isFile() || !entry.name.endsWith('.ts')) return [];
    return [{ path: relative(SRC, path).split('\\').join('/'), text: readFileSync(path, 'utf8') }];
  });
}

const SOURCES = sources(SRC);

/** Every class of src/ and what it extends (its generic arguments included). */
function classes(): Map<string, { parent: string; typeArgument: string; generic: string; path: string }> {
  const found = new Map<string, { parent: string; typeArgument: string; generic: string; path: string }>();
  const pattern = /\bclass (\w+)(<[^{]*?>)? extends (\w+)(?:<([\s\S]*?)>)?\s*\{/g;
  for (const { path, text } of SOURCES)
    for (const match of text.matchAll(pattern))
      found.set(match[1]!, { parent: match[3]!, typeArgument: match[4]?.trim() ?? '', generic: match[2] ?? '', path });
  return found;
}

const CLASSES = classes();

function ancestry(name: string): string[] {
  const chain = [name];
  for (let at = CLASSES.get(name); at; at = CLASSES.get(at.parent)) chain.push(at.parent);
  return chain;
}

/** The codes a layer class's type lists: its type argument, a union or a named union (or its generic's default). */
function codesOf(name: string): string[] {
  const declared = CLASSES.get(name);
  if (!declared) return [];
  let union = declared.typeArgument;
  const generic = /^<\s*(\w+) extends (\w+)/.exec(declared.generic);
  if (generic && union === generic[1]) union = generic[2]!;
  if (/^\w+$/.test(union)) {
    const alias = new RegExp(`\\btype ${union}\\s*=([^;]*);`);
    union = SOURCES.map(({ text }) => alias.exec(text)?.[1]).find((body) => body !== undefined) ?? '';
  }
  return [...union.replace(/\/\*[\s\S]*?\*\//g, '').matchAll(/'([A-Z][A-Z_]*)'/g)].map((match) => match[1]!);
}

describe('errors', () => {
  it('throws no bare OcvectorError or Error: every throw is a layer class or a listed exception', () => {
    const offences: string[] = [];
    for (const { path, text } of SOURCES) {
      for (const match of text.matchAll(/new OcvectorError\b/g))
        offences.push(`${path}:${text.slice(0, match.index).split('\n').length}: new OcvectorError`);
      for (const match of text.matchAll(/\bthrow new (\w+)\s*[(<]/g)) {
        const name = match[1]!;
        const where = `${path}:${text.slice(0, match.index).split('\n').length}: throw new ${name}`;
        if (name in NOT_OCVECTOR_ERRORS || name === 'OcvectorError') continue;
        const chain = ancestry(name);
        const layer = chain.find((ancestor) => LAYER_CLASSES.includes(ancestor));
        if (!layer || !chain.includes('OcvectorError')) offences.push(`${where} (${chain.join(' < ')})`);
      }
    }
    expect(offences).toEqual([]);
  });

  it('gives each layer one class, straight under OcvectorError, and every other one a layer class above it', () => {
    for (const name of LAYER_CLASSES) expect(CLASSES.get(name)?.parent, name).toBe('OcvectorError');
    for (const [name, { parent }] of CLASSES) {
      if (name === 'OcvectorError' || !ancestry(name).includes('OcvectorError')) continue;
      if (parent === 'OcvectorError') expect(LAYER_CLASSES, `${name} extends OcvectorError`).toContain(name);
      else
        expect(
          ancestry(name).some((ancestor) => LAYER_CLASSES.includes(ancestor)),
          name,
        ).toBe(true);
    }
  });

  it('lists each exception that is not an OcvectorError where it is still thrown', () => {
    const thrown = new Set(SOURCES.flatMap(({ text }) => [...text.matchAll(/\bthrow new (\w+)/g)].map((m) => m[1]!)));
    for (const name of Object.keys(NOT_OCVECTOR_ERRORS)) expect(thrown, name).toContain(name);
  });

  it('documents every layer class and every code of its type in docs/architecture.md', () => {
    const doc = readFileSync(ARCHITECTURE, 'utf8');
    const start = doc.indexOf('\n## Errors');
    expect(start, 'a section "## Errors"').toBeGreaterThanOrEqual(0);
    const end = doc.indexOf('\n## ', start + 1);
    const table = doc.slice(start, end === -1 ? undefined : end);
    for (const name of LAYER_CLASSES) {
      const row = table.split('\n').find((line) => line.startsWith(`| \`${name}\``));
      expect(row, `a row for ${name}`).toBeDefined();
      const codes = codesOf(name);
      expect(codes.length, `${name}'s codes`).toBeGreaterThan(0);
      for (const code of codes) expect(row, `${name} ${code}`).toContain(`\`${code}\``);
    }
  });
});
