/**
 * docs/api.md cannot drift from the entry points: every name an entry point
 * exports (values and types, as the TypeScript compiler sees them) is on the
 * page, every name on the page is exported, and what the page calls a class,
 * a function or a type is what the name is at run time. A name added to
 * src/index.ts is a promise to users: this test asks that the promise be
 * written down, in the same change.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const PAGE = 'docs/api.md';

/** Each entry point the page documents: its source, and the module as a user loads it. */
const ENTRIES: Record<string, { source: string; load: () => Promise<Record<string, unknown>> }> = {
  ocvector: { source: 'src/index.ts', load: () => import('../../src/index.js') },
  'ocvector/mcp': { source: 'src/mcp/index.ts', load: () => import('../../src/mcp/index.js') },
};

const KINDS = ['class', 'function', 'constant', 'type'] as const;
type Kind = (typeof KINDS)[number];

interface Documented {
  name: string;
  kind: Kind;
  purpose: string;
}

/**
 * The names each `## \`entry\`` section of the page lists: the rows of its
 * tables whose first cell is one name in backticks. A row that starts so but
 * does not read `| \`Name\` | kind | what it is for |` is a mistake, reported.
 */
function documentedNames(markdown: string): { entries: Map<string, Documented[]>; problems: string[] } {
  const entries = new Map<string, Documented[]>();
  const problems: string[] = [];
  let current: Documented[] | undefined;
  for (const line of markdown.split('\n')) {
    const heading = /^## (.*)$/.exec(line);
    if (heading) {
      const entry = /^`([^`]+)`$/.exec(heading[1]!.trim())?.[1];
      current = entry ? (entries.get(entry) ?? []) : undefined;
      if (entry) entries.set(entry, current!);
      continue;
    }
    if (!line.startsWith('| `')) continue;
    const row = /^\| `([A-Za-z_$][\w$]*)` \| ([a-z]+) \| (.*\S) \|$/.exec(line);
    if (!row) {
      problems.push(`not a "| \`Name\` | kind | what it is for |" row: ${line}`);
      continue;
    }
    const [, name, kind, purpose] = row as unknown as [string, string, string, string];
    if (!(KINDS as readonly string[]).includes(kind))
      problems.push(`${name}: kind "${kind}" is none of ${KINDS.join(', ')}`);
    else if (!current) problems.push(`${name} is listed outside a section of an entry point`);
    else current.push({ name, kind: kind as Kind, purpose });
  }
  return { entries, problems };
}

/** Every name a module exports, values and types, as the compiler resolves its export statements. */
function exportedNames(sources: readonly string[]): Map<string, string[]> {
  const config = ts.readConfigFile(`${ROOT}/tsconfig.json`, ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const program = ts.createProgram(
    sources.map((source) => `${ROOT}/${source}`),
    options,
  );
  const checker = program.getTypeChecker();
  return new Map(
    sources.map((source) => {
      const file = program.getSourceFile(`${ROOT}/${source}`);
      const module = file && checker.getSymbolAtLocation(file);
      if (!module) throw new Error(`${source} is not a module the compiler can read`);
      return [source, checker.getExportsOfModule(module).map((symbol) => symbol.name)];
    }),
  );
}

/** What a value is at run time, in the page's words. */
function kindOf(value: unknown): Kind {
  if (typeof value !== 'function') return 'constant';
  return /^class\b/.test(Function.prototype.toString.call(value)) ? 'class' : 'function';
}

const sorted = (names: Iterable<string>) => [...names].sort();

describe('docs/api.md', () => {
  const { entries, problems } = documentedNames(readFileSync(`${ROOT}/${PAGE}`, 'utf8'));
  const exported = exportedNames(Object.values(ENTRIES).map((entry) => entry.source));

  it('reads the rows of the page, and finds no malformed one', () => {
    const sample = documentedNames(
      '## `lib`\n### Group\n| name | kind | what it is for |\n| --- | --- | --- |\n' +
        '| `Thing` | class | Does it. |\n| `Options` | type | Its options. |\n' +
        '| `bad` | widget | No such kind. |\n| `torn` | class |\n## Other\n| `Stray` | type | Here. |\n',
    );
    expect(sample.entries.get('lib')).toEqual([
      { name: 'Thing', kind: 'class', purpose: 'Does it.' },
      { name: 'Options', kind: 'type', purpose: 'Its options.' },
    ]);
    expect(sample.problems).toHaveLength(3);
    expect(problems).toEqual([]);
    expect(sorted(entries.keys())).toEqual(sorted(Object.keys(ENTRIES)));
  });

  for (const [entry, { source, load }] of Object.entries(ENTRIES)) {
    describe(`\`${entry}\` (${source})`, () => {
      const rows = () => entries.get(entry) ?? [];

      it('lists every name the entry point exports, and only those, once each', () => {
        const listed = rows().map((row) => row.name);
        const names = new Set(exported.get(source));
        expect({
          'exported but not on the page': sorted(names).filter((name) => !listed.includes(name)),
          'on the page but not exported': sorted(new Set(listed)).filter((name) => !names.has(name)),
          'on the page twice': sorted(new Set(listed.filter((name, i) => listed.indexOf(name) !== i))),
        }).toEqual({ 'exported but not on the page': [], 'on the page but not exported': [], 'on the page twice': [] });
      });

      it('calls each name what it is at run time: a class, a function, a constant, or a type (no value)', async () => {
        const module = await load();
        const names = new Set(exported.get(source));
        const both = rows().filter((row) => names.has(row.name));
        expect(Object.fromEntries(both.map((row) => [row.name, row.kind]))).toEqual(
          Object.fromEntries(both.map(({ name }) => [name, name in module ? kindOf(module[name]) : 'type'])),
        );
      });
    });
  }
});
