/**
 * tree-sitter-swift is an optional dependency (npm leaves it out where its
 * dependency tree-sitter-cli cannot download from GitHub), and the package
 * ships a copy of its linux-x64 binding in grammars/ (scripts/prebuild.mjs).
 * Here: the loader takes that copy when the package cannot be imported, and
 * prefers the package when both are there; and oc-vector-index, run from a
 * package layout without either, says once per grammar how to install it.
 * The copies are made here from the installed tree-sitter-swift, laid out as
 * prebuild.mjs lays them out (its own copy is checked by prebuilt.test.ts).
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { unavailableGrammarIn, unavailableGrammarMessage } from '../../src/analysis/ast/grammar-warning.js';
import { grammarOf, overrideGrammarPackage } from '../../src/analysis/ast/parsers.js';
import { analyzeText, type CodeFile } from '../../src/internal.js';
import { runNode } from '../helpers/run-node.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SWIFT = readFileSync(join(ROOT, 'test', 'fixtures', 'analysis', 'languages', 'CORSMiddleware.swift'), 'utf8');
const INSTALLED = join(ROOT, 'node_modules', 'tree-sitter-swift');
const PLATFORM = `${process.platform}-${process.arch}`;
const hasPrebuilt = existsSync(join(INSTALLED, 'prebuilds', PLATFORM));
const NOT_INSTALLED = 'tree-sitter-swift-that-is-not-installed';

const work = mkdtempSync(join(tmpdir(), 'ocvector-grammar-fallback-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** grammars/tree-sitter-swift/ as the package ships it, for this platform, under `packageRoot`. */
function shipSwift(packageRoot: string): string {
  const copy = join(packageRoot, 'grammars', 'tree-sitter-swift');
  const { version } = JSON.parse(readFileSync(join(INSTALLED, 'package.json'), 'utf8')) as { version: string };
  cpSync(join(INSTALLED, 'prebuilds', PLATFORM), join(copy, 'prebuilds', PLATFORM), { recursive: true });
  mkdirSync(join(copy, 'src'));
  cpSync(join(INSTALLED, 'src', 'node-types.json'), join(copy, 'src', 'node-types.json'));
  writeFileSync(join(copy, 'package.json'), JSON.stringify({ name: 'tree-sitter-swift', version, private: true }));
  return copy;
}

/** An installed ocvector's directory, bare: node-gyp-build (its dependency) and nothing else. */
function bareInstall(): string {
  const root = mkdtempSync(join(work, 'package-'));
  mkdirSync(join(root, 'node_modules'));
  symlinkSync(join(ROOT, 'node_modules', 'node-gyp-build'), join(root, 'node_modules', 'node-gyp-build'));
  return root;
}

/** A copy that cannot load: its package.json, no binary. */
function brokenCopy(): string {
  const copy = join(bareInstall(), 'grammars', 'tree-sitter-swift');
  mkdirSync(copy, { recursive: true });
  writeFileSync(join(copy, 'package.json'), JSON.stringify({ name: 'tree-sitter-swift', version: '0.0.0' }));
  return copy;
}

const shape = (file: CodeFile) =>
  file.elements.map((e) => `${e.type} ${e.parent ? `${e.parent}.` : ''}${e.name}@${e.startLine}-${e.endLine}`);

describe.runIf(hasPrebuilt)('the Swift grammar, from tree-sitter-swift or from the copy ocvector ships', () => {
  const fromPackage = analyzeText('CORSMiddleware.swift', SWIFT);

  it('without tree-sitter-swift, Swift files parse from the shipped copy, as from the package', () => {
    expect(fromPackage.source).toBe('ast');
    const copy = shipSwift(bareInstall());
    const restore = overrideGrammarPackage('swift', { package: NOT_INSTALLED, shipped: copy });
    try {
      const file = analyzeText('CORSMiddleware.swift', SWIFT);
      expect(file.warnings).toEqual([]);
      expect(file.source).toBe('ast');
      expect(shape(file)).toEqual(shape(fromPackage));
      expect(shape(file)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^class CORSMiddleware@9-/),
          expect.stringMatching(/^struct CORSMiddleware\.Configuration@55-/),
        ]),
      );
      // Loaded the way the package's own binding loads it: the node types too.
      expect((grammarOf('swift') as { nodeTypeInfo?: unknown[] }).nodeTypeInfo?.length).toBeGreaterThan(100);
    } finally {
      restore();
    }
  });

  it('prefers the installed package to the copy', () => {
    const restore = overrideGrammarPackage('swift', { package: 'tree-sitter-swift', shipped: brokenCopy() });
    try {
      expect(shape(analyzeText('CORSMiddleware.swift', SWIFT))).toEqual(shape(fromPackage));
    } finally {
      restore();
    }
  });

  it('with neither, the file is text windows and its warning names the package and why the copy did not load', () => {
    const copy = brokenCopy();
    const restore = overrideGrammarPackage('swift', { package: NOT_INSTALLED, shipped: copy });
    try {
      const file = analyzeText('CORSMiddleware.swift', SWIFT);
      expect(file.source).toBe('text');
      expect(file.warnings).toHaveLength(1);
      expect(file.warnings[0]).toMatch(
        new RegExp(
          `^the swift grammar could not be loaded \\(${NOT_INSTALLED}: Cannot find module '${NOT_INSTALLED}'; its copy in ${copy}: No native build was found .*\\); analysed as text windows$`,
        ),
      );
      expect(unavailableGrammarIn(file.warnings[0]!)).toEqual({ language: 'swift', package: NOT_INSTALLED });
    } finally {
      restore();
    }
    expect(analyzeText('CORSMiddleware.swift', SWIFT).source).toBe('ast');
  });
});

describe('the grammar-unavailable warning, read back', () => {
  it('gives the language and the package, scoped ones too, and nothing for other warnings', () => {
    const kotlin = { language: 'kotlin', package: '@tree-sitter-grammars/tree-sitter-kotlin' };
    expect(
      unavailableGrammarIn(`${unavailableGrammarMessage(kotlin, 'No native build (x: y)')}; analysed as text windows`),
    ).toEqual(kotlin);
    expect(
      unavailableGrammarIn(unavailableGrammarMessage({ language: 'vala' }, 'no tree-sitter grammar for vala')),
    ).toEqual({
      language: 'vala',
      package: undefined,
    });
    expect(unavailableGrammarIn('syntax errors: tree-sitter recovered from 1 error region(s)')).toBeUndefined();
  });
});

/**
 * The built CLI in a package directory of its own: dist/ copied (modules
 * find grammars/ beside dist/), every dependency linked except
 * tree-sitter-swift, no grammars/ unless a test adds it.
 */
function cliPackage(): string {
  const root = mkdtempSync(join(work, 'cli-'));
  cpSync(join(ROOT, 'dist'), join(root, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(root, 'package.json'));
  for (const linked of ['resources', 'build', 'prebuilds'])
    if (existsSync(join(ROOT, linked))) symlinkSync(join(ROOT, linked), join(root, linked));
  mkdirSync(join(root, 'node_modules'));
  for (const entry of readdirSync(join(ROOT, 'node_modules')))
    if (entry !== 'tree-sitter-swift' && entry !== '.bin')
      symlinkSync(join(ROOT, 'node_modules', entry), join(root, 'node_modules', entry));
  return root;
}

describe.runIf(hasPrebuilt && existsSync(join(ROOT, 'dist', 'cli', 'oc-vector-index.js')))(
  'oc-vector-index where tree-sitter-swift is not installed',
  () => {
    const cli = cliPackage();
    const project = mkdtempSync(join(work, 'project-'));
    mkdirSync(join(project, 'ios'));
    writeFileSync(join(project, 'ios', 'CORSMiddleware.swift'), SWIFT);
    writeFileSync(join(project, 'ios', 'Other.swift'), 'struct Other {\n  let name: String\n}\n');
    writeFileSync(join(project, 'users.ts'), 'export function findUser(id: string): string {\n  return id;\n}\n');
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', OLLAMA_HOST: 'http://127.0.0.1:9' };
    const run = (bin: string, args: string[]) =>
      runNode([join(cli, 'dist', 'cli', `${bin}.js`), ...args], { cwd: project, env, timeout: 60_000 });
    const index = () => run('oc-vector-index', ['--no-llm', '--embedder', 'builtin', '--rebuild', '.']);

    it('without the copy either: one warning line for the grammar, naming the command that installs it', async () => {
      expect(existsSync(join(cli, 'grammars'))).toBe(false);
      const result = await index();
      expect(result.code, result.stderr).toBe(0);
      const { optionalDependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        optionalDependencies: Record<string, string>;
      };
      const lines = result.stderr.split('\n').filter((line) => line.includes('grammar'));
      expect(lines).toEqual([
        expect.stringMatching(
          /^warning: the swift grammar could not be loaded \(tree-sitter-swift: Cannot find module 'tree-sitter-swift'.*\); analysed as text windows\. /,
        ),
      ]);
      expect(lines[0]).toContain(
        `To parse swift files: npm install tree-sitter-swift@${optionalDependencies['tree-sitter-swift']} --ignore-scripts in your project (with -g where ocvector is installed globally)`,
      );
      // --quiet: no warnings at all.
      const quiet = await run('oc-vector-index', ['--no-llm', '--embedder', 'builtin', '--rebuild', '--quiet', '.']);
      expect(quiet.code).toBe(0);
      expect(quiet.stderr).not.toMatch(/grammar/);
    });

    it('with the copy in grammars/: Swift parses, and nothing is said', async () => {
      shipSwift(cli);
      const result = await index();
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toMatch(/grammar/);
      const found = await run('oc-vector-search', ['CORSMiddleware', '--json']);
      expect(found.code, found.stderr).toBe(0);
      const output = JSON.parse(found.stdout) as { results: { type: string; name: string; language: string }[] };
      expect(output.results[0]).toMatchObject({ type: 'class', name: 'CORSMiddleware', language: 'swift' });
    });
  },
);
