/**
 * What the install instructions promise, against what the package and its dependencies declare
 * (docs/install.md):
 * - the Node.js that `engines` names is one every dependency of the installed package accepts, on
 *   each line CI runs, and the README says the same;
 * - a development dependency that wants a newer Node.js is named where the docs explain the
 *   `EBADENGINE` warning it causes;
 * - no command in README.md or docs/ fetches ocvector from the npm registry without saying that
 *   it is not published yet, and none lets `npx` fetch a package under one of its names.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface LockEntry {
  version?: string;
  dev?: boolean;
  engines?: { node?: string } | string[];
}

const pkg = JSON.parse(read('package.json')) as { engines: { node: string }; bin: Record<string, string> };
const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, LockEntry> };

type Version = [number, number, number];
const parseVersion = (text: string): Version => {
  const [major = 0, minor = 0, patch = 0] = text.split('.').map(Number);
  return [major, minor, patch];
};
const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/**
 * Whether a version lies in an npm `engines` range, for the forms package-lock.json holds (`*`,
 * `>=`, `>`, `<=`, `<`, `^`, `~`, x-ranges such as `20.x`, sets joined by spaces and by `||`).
 * Any other form throws, so that a new one is never read as a pass.
 */
function satisfies(version: string, range: string): boolean {
  const have = parseVersion(version);
  return range.split('||').some((set) =>
    set
      .trim()
      .replace(/(>=|<=|[<>^~=])\s+/g, '$1')
      .split(/\s+/)
      .every((comparator) => {
        if (comparator === '' || comparator === '*') return true;
        const match = /^(>=|<=|>|<|\^|~|=)?v?(\d+)(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?$/.exec(comparator);
        if (!match) throw new Error(`unread engines range: ${range}`);
        const [, op = '', ...parts] = match;
        const given = parts.filter((part): part is string => part !== undefined && /^\d+$/.test(part)).map(Number);
        const floor: Version = [given[0] ?? 0, given[1] ?? 0, given[2] ?? 0];
        const order = compare(have, floor);
        switch (op) {
          case '>=':
            return order >= 0;
          case '>':
            return order > 0;
          case '<=':
            return order <= 0;
          case '<':
            return order < 0;
          case '^':
            if (floor[0] === 0) throw new Error(`unread engines range: ${range}`);
            return have[0] === floor[0] && order >= 0;
          case '~':
            return have[0] === floor[0] && (given.length < 2 || have[1] === floor[1]) && order >= 0;
          default:
            return given.every((part, index) => have[index] === part);
        }
      }),
  );
}

const nodeRange = (entry: LockEntry) => (Array.isArray(entry.engines) ? undefined : entry.engines?.node);
/** `node_modules/a/node_modules/@b/c` → `@b/c`. */
const packageName = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
const dependencies = Object.entries(lock.packages).filter(([path]) => path !== '');

/** The lowest Node.js `engines` allows: it must be written `>=X.Y.Z` (scripts/setup.sh reads it so). */
const minimum = /^>=(\d+\.\d+\.\d+)$/.exec(pkg.engines.node)?.[1];
/** The lines `.ci/run` runs the suite on besides the machine's: `for line in 22 24`. */
const ciLines = (/for line in ([\d ]+);/.exec(read('.ci/run'))?.[1] ?? '').trim().split(/\s+/).map(Number);

/** A markdown file's sections (split at headings outside code blocks), each with its heading. */
function sections(text: string): { heading: string; lines: { text: string; number: number }[] }[] {
  const found = [{ heading: '', lines: [] as { text: string; number: number }[] }];
  let fenced = false;
  text.split('\n').forEach((line, index) => {
    if (line.startsWith('```')) fenced = !fenced;
    if (!fenced && /^#{1,6} /.test(line)) found.push({ heading: line.replace(/^#+ /, ''), lines: [] });
    found.at(-1)!.lines.push({ text: line, number: index + 1 });
  });
  return found;
}

const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
/** Every line of README.md and docs/*.md with its file and section. */
const docLines = DOCS.flatMap((file) =>
  sections(read(file)).flatMap((section) =>
    section.lines.map((line) => ({ file, section, where: `${file}:${line.number}`, text: line.text })),
  ),
);

/** `npm install ocvector`, `npm i -D ocvector@1`: by name, from the registry (a path or a tarball is not). */
const REGISTRY_INSTALL = /\bnpm\s+(?:install|i|add)\b[^`\n]*?(?<![\w./@-])ocvector(?:@[\w.^~-]+)?(?![\w./-])/;
const UNPUBLISHED = /not (?:yet )?(?:published|on the npm registry)|until (?:ocvector|it) is published/i;
const OUR_NAMES = new Set(['ocvector', ...Object.keys(pkg.bin)]);

/** Each `npx` call in a line, as its options and the package or command it names. */
function npxCalls(line: string): { options: string[]; name: string }[] {
  const calls: { options: string[]; name: string }[] = [];
  for (const match of line.matchAll(/\bnpx((?:\s+--?[\w-]+)*)\s+([@\w][\w./@-]*)/g))
    calls.push({ options: match[1]!.trim().split(/\s+/).filter(Boolean), name: match[2]! });
  // An MCP client's JSON: "command": "npx", "args": ["--no-install", "ocvector", ...]
  for (const match of line.matchAll(/"command":\s*"npx",\s*"args":\s*\[([^\]]*)\]/g)) {
    const args = [...match[1]!.matchAll(/"([^"]*)"/g)].map((arg) => arg[1]!);
    const at = args.findIndex((arg) => !arg.startsWith('-'));
    calls.push({ options: args.slice(0, at), name: args[at] ?? '' });
  }
  return calls;
}

describe('the Node.js the package promises', () => {
  it('reads engines ranges as npm does, for the forms the lockfile holds', () => {
    expect(satisfies('20.19.0', '>= 20.19.0')).toBe(true);
    expect(satisfies('20.18.3', '>= 20.19.0')).toBe(false);
    expect(satisfies('22.11.0', '^20.19.0 || >=22.12.0')).toBe(false);
    expect(satisfies('21.0.0', '20.x || 22.x')).toBe(false);
    expect(satisfies('14.18.0', '>=16 || 14 >=14.17')).toBe(true);
    expect(() => satisfies('20.0.0', '>=20 <=latest')).toThrow(/unread/);
  });

  it('is a version every dependency of the installed package accepts, and so is each line CI runs', () => {
    expect(minimum, `package.json engines.node is ${pkg.engines.node}, not >=X.Y.Z`).toBeDefined();
    expect(ciLines.length).toBeGreaterThan(0);
    const versions = [minimum!, ...ciLines.map((line) => `${line}.0.0`)];
    const refused = dependencies
      .filter(([, entry]) => !entry.dev && nodeRange(entry))
      .flatMap(([path, entry]) =>
        versions
          .filter((version) => !satisfies(version, nodeRange(entry)!))
          .map((version) => `${path} (${nodeRange(entry)}) refuses ${version}`),
      );
    expect(refused).toEqual([]);
  });

  it('is what the README and docs/install.md say', () => {
    const [major, minor] = minimum!.split('.');
    const quickStart = sections(read('README.md')).find((section) => section.heading === 'Quick start')!;
    const stated = quickStart.lines.map((line) => /Node\.js ≥ (\d+(?:\.\d+)*)/.exec(line.text)?.[1]).find(Boolean);
    expect(stated).toBe(`${major}.${minor}`);
    expect(read('docs/install.md')).toContain(`\`>=${minimum}\``);
  });

  it('names, in docs/install.md, each development dependency that wants a newer Node.js (npm warns EBADENGINE for it)', () => {
    const nodeVersions = sections(read('docs/install.md'))
      .find((section) => section.heading === 'Node.js versions')!
      .lines.map((line) => line.text)
      .join('\n');
    const wanting = dependencies
      .filter(([, entry]) => entry.dev && nodeRange(entry) && !satisfies(minimum!, nodeRange(entry)!))
      .map(([path]) => packageName(path));
    const unnamed = [...new Set(wanting)].filter((name) => !nodeVersions.includes(`\`${name}\``));
    expect(unnamed).toEqual([]);
  });
});

describe('the install commands in README.md and docs/', () => {
  it('install ocvector from the npm registry only in a section that says it is not published yet', () => {
    const unsaid = docLines
      .filter((line) => REGISTRY_INSTALL.test(line.text))
      .filter((line) => !line.section.lines.some((other) => UNPUBLISHED.test(other.text)))
      .map((line) => `${line.where}: ${line.text.trim()}`);
    expect(unsaid).toEqual([]);
  });

  it("run ocvector's names through npx only with --no-install (the registry may hold anyone's package by that name)", () => {
    const fetching = docLines
      // In the clone, npx runs the clone's own commands: the Quick start is run there.
      .filter((line) => !(line.file === 'README.md' && line.section.heading === 'Quick start'))
      .flatMap((line) => npxCalls(line.text).map((call) => ({ ...call, line })))
      .filter((call) => OUR_NAMES.has(call.name) && !call.options.includes('--no-install'))
      .map((call) => `${call.line.where}: npx … ${call.name}`);
    expect(fetching).toEqual([]);
  });
});
