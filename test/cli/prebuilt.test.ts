/**
 * The packed tarball, installed into an empty directory the way a user does
 * it: `npm install <tarball>` with every install script run, from the npm
 * registry alone (this machine, like CI's, reaches nothing else). Then what
 * the user does next: the Quick start with the installed CLIs, `npx ocvector`,
 * `import('ocvector')` and `require('ocvector')`.
 *
 * What the install does here: ocvector's own script uses its prebuilt addon
 * (FAISS, OpenBLAS and OpenMP inside) and builds nothing; better-sqlite3
 * compiles from source (its prebuilt binaries come from GitHub, out of reach);
 * tree-sitter compiles too (its prebuilt binary needs a newer libstdc++ than
 * Debian 12's); the grammars load their own prebuilt binaries. The Swift
 * grammar is an optional dependency: tree-sitter-swift depends on
 * tree-sitter-cli, whose install script downloads a binary from GitHub, so
 * without GitHub npm leaves both out, and ocvector parses Swift with the copy
 * of tree-sitter-swift's linux-x64 binding it ships (grammars/). One install:
 * about 2 min on 2 cores (the two compilations), nearly all of this file's
 * time.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_LIBRARIES } from '../../scripts/base-libraries.mjs';
import { searchFixtureFiles } from '../helpers/search-repo.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SWIFT_FIXTURE = join(ROOT, 'test', 'fixtures', 'analysis', 'languages', 'CORSMiddleware.swift');
const supported = process.platform === 'linux' && process.arch === 'x64';
/** require() of an ES module: Node 20.19 and 22.12 on, without a flag. */
const requireEsm = (process.features as { require_module?: boolean }).require_module === true;

describe.runIf(supported)('the packed tarball, npm-installed into an empty directory (linux-x64)', () => {
  const work = mkdtempSync(join(tmpdir(), 'ocvector-tarball-'));
  const app = join(work, 'app');
  const installed = join(app, 'node_modules', 'ocvector');
  const project = join(app, 'project');
  const node = (args: string[], cwd = app) => execFileSync(process.execPath, args, { cwd, encoding: 'utf8' });
  /** An installed command, through npx as a user runs it (--no-install: never fetched). */
  const npx = (args: string[], cwd = app) =>
    execFileSync('npx', ['--no-install', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

  beforeAll(async () => {
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'prebuild.mjs')], { cwd: ROOT, stdio: 'pipe' });
    const [pack] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
        cwd: ROOT,
        encoding: 'utf8',
      }),
    ) as [{ filename: string }];
    mkdirSync(app);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'app', version: '1.0.0', private: true, type: 'module' }),
    );
    // With its scripts. --prefer-offline: what the npm cache holds (the
    // checkout's own install filled it) is not asked for again; the rest comes
    // from the registry. Asynchronous: minutes of a blocked event loop would
    // time out the test worker's calls to vitest.
    await promisify(execFile)(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, pack.filename)],
      { cwd: app, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    ).catch((error: Error & { stdout?: string; stderr?: string }) => {
      const output = `${error.stdout ?? ''}${error.stderr ?? ''}`.slice(-6000);
      throw new Error(`npm install of the tarball failed: ${error.message.split('\n')[0]}\n${output}`);
    });

    const files = { ...searchFixtureFiles(), 'ios/CORSMiddleware.swift': readFileSync(SWIFT_FIXTURE, 'utf8') };
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(project, path, '..'), { recursive: true });
      writeFileSync(join(project, path), content);
    }
  }, 600_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('uses the addon it ships, with FAISS, OpenBLAS and OpenMP beside it, and builds nothing of its own', () => {
    expect(existsSync(join(installed, 'prebuilds', 'linux-x64', 'ocvector.node'))).toBe(true);
    expect(existsSync(join(installed, 'build'))).toBe(false);
    const manifest = JSON.parse(readFileSync(join(installed, 'prebuilds', 'linux-x64', 'manifest.json'), 'utf8')) as {
      libraries: string[];
    };
    expect(manifest.libraries).toEqual(expect.arrayContaining(['libopenblas.so.0', 'libgomp.so.1']));
  });

  it('needs no library outside the package beyond libc, libm, libstdc++, libgcc_s and the loader (ldd)', () => {
    const prebuilt = join(installed, 'prebuilds', 'linux-x64');
    const lines = execFileSync('ldd', [join(prebuilt, 'ocvector.node')], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.trim());
    expect(
      lines.some((line) => line.includes('not found')),
      lines.join('\n'),
    ).toBe(false);
    const outside = lines
      .map((line) => /^\s*(\S+)(?: => (\S+))?/.exec(line)!)
      .filter(([, name, path]) => !BASE_LIBRARIES.test(basename(name!)) && !path?.startsWith(`${prebuilt}/`));
    expect(outside.map(([line]) => line)).toEqual([]);
  });

  it('type-checks in a TypeScript app under skipLibCheck: false, with no dev dependency of ocvector installed', () => {
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
        },
        files: ['app.ts'],
      }),
    );
    writeFileSync(
      join(app, 'app.ts'),
      [
        "import { FaissIndex, Indexer, Searcher, StoreError, type SearchResponse } from 'ocvector';",
        "import { createCodebaseMcpServer } from 'ocvector/mcp';",
        'export const parts = [FaissIndex, Indexer, Searcher, StoreError, createCodebaseMcpServer];',
        'export type Response = SearchResponse;',
      ].join('\n'),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = spawnSync(process.execPath, [tsc, '-p', app], { cwd: app, encoding: 'utf8' });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it("loads with import(): the prebuilt addon and its own BLAS; the 'ocvector/mcp' entry too", () => {
    const loaded = JSON.parse(
      node([
        '--input-type=module',
        '-e',
        [
          "const o = await import('ocvector');",
          "const mcp = await import('ocvector/mcp');",
          'console.log(JSON.stringify({ blas: o.blasInfo(), indexer: typeof o.Indexer, mcp: typeof mcp.createCodebaseMcpServer }));',
        ].join(' '),
      ]),
    ) as { blas: { library: string; vendor: string }; indexer: string; mcp: string };
    expect(loaded.blas.vendor).toBe('openblas');
    expect(loaded.blas.library.startsWith(join(installed, 'prebuilds', 'linux-x64'))).toBe(true);
    expect([loaded.indexer, loaded.mcp]).toEqual(['function', 'function']);
  });

  // Node 20 before 20.19 (and 22 before 22.12) have no require() of an ES
  // module without a flag: there, only import() loads the package.
  it.runIf(requireEsm)('loads with require() from CommonJS, on a Node that can require an ES module', () => {
    const script = [
      "const o = require('ocvector');",
      "const mcp = require('ocvector/mcp');",
      'console.log(JSON.stringify([typeof o.Indexer, typeof o.Searcher, typeof o.FaissIndex, typeof mcp.createCodebaseMcpServer]));',
    ].join(' ');
    expect(JSON.parse(node(['--input-type=commonjs', '-e', script]))).toEqual([
      'function',
      'function',
      'function',
      'function',
    ]);
  });

  it('runs the Quick start with the installed commands: index a directory, search it; npx ocvector --help', () => {
    npx(['oc-vector-index', project, '--no-llm', '--embedder', 'builtin', '--quiet']);
    expect(existsSync(join(project, '.ocvector'))).toBe(true);
    const output = JSON.parse(npx(['oc-vector-search', 'hash a password with a salt', '--json'], project)) as {
      results: { path: string }[];
    };
    expect(output.results.length).toBeGreaterThan(0);
    expect(output.results[0]!.path).toMatch(/password|auth|crypto/);

    const help = npx(['ocvector', '--help']);
    expect(help).toMatch(/^Usage: ocvector /m);
    for (const command of ['index', 'search', 'status', 'mcp']) expect(help).toContain(command);
  });

  /** Where Node finds tree-sitter-swift from the installed package, if anywhere (nested, or hoisted into the app). */
  const swiftPackages = () =>
    [installed, app]
      .map((dir) => join(dir, 'node_modules', 'tree-sitter-swift'))
      .filter((dir) => existsSync(join(dir, 'package.json')));
  const swiftCopy = join(installed, 'grammars', 'tree-sitter-swift');
  const swift = join(app, 'swift');

  it('parses Swift into classes and structs: with tree-sitter-swift, or where npm left it out, with the copy it ships', () => {
    // The copy is of the version ocvector pins.
    const declared = (
      JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
        optionalDependencies: Record<string, string>;
      }
    ).optionalDependencies['tree-sitter-swift'];
    const copy = JSON.parse(readFileSync(join(swiftCopy, 'package.json'), 'utf8')) as { version: string };
    expect(copy.version).toBe(declared);
    expect(existsSync(join(swiftCopy, 'prebuilds', 'linux-x64', 'tree-sitter-swift.node'))).toBe(true);
    if (swiftPackages().length === 0) expect(existsSync(join(app, 'node_modules', 'tree-sitter-cli'))).toBe(false);

    mkdirSync(swift, { recursive: true });
    cpSync(SWIFT_FIXTURE, join(swift, 'CORSMiddleware.swift'));
    const script = [
      "const { Indexer } = await import('ocvector');",
      "const { analyzeText } = await import('ocvector/internal');",
      'const warnings = [];',
      `const onEvent = (e) => { if (e.type === 'analysis' && e.event.type === 'warning') warnings.push(e.event.message); };`,
      `const summary = await new Indexer({ path: ${JSON.stringify(swift)}, llm: false, embedder: 'builtin', onEvent }).run();`,
      `const file = analyzeText('CORSMiddleware.swift', ${JSON.stringify(readFileSync(SWIFT_FIXTURE, 'utf8'))});`,
      "const elements = file.elements.map((e) => [e.type, e.parent ? e.parent + '.' + e.name : e.name].join(' '));",
      'console.log(JSON.stringify({ warnings, total: summary.elements.total, source: file.source, elements }));',
    ].join(' ');
    const run = JSON.parse(node(['--input-type=module', '-e', script])) as {
      warnings: string[];
      total: number;
      source: string;
      elements: string[];
    };
    expect(run.warnings).toEqual([]);
    expect(run.source).toBe('ast');
    expect(run.elements).toEqual(
      expect.arrayContaining([
        'class CORSMiddleware',
        'struct CORSMiddleware.Configuration',
        'enum CORSMiddleware.AllowOriginSetting',
      ]),
    );
    expect(run.total).toBeGreaterThan(0);
  });

  it('without either, oc-vector-index says once how to install the grammar, and that command makes Swift parse', async () => {
    // The last test: it takes the grammar away from the installed app.
    const aside = join(work, 'aside');
    mkdirSync(aside);
    renameSync(swiftCopy, join(aside, 'copy'));
    swiftPackages().forEach((dir, i) => renameSync(dir, join(aside, `package-${i}`)));
    mkdirSync(swift, { recursive: true });
    for (const name of ['CORSMiddleware.swift', 'Second.swift']) cpSync(SWIFT_FIXTURE, join(swift, name));
    const index = () =>
      spawnSync('npx', ['--no-install', 'oc-vector-index', swift, '--no-llm', '--embedder', 'builtin', '--rebuild'], {
        cwd: app,
        encoding: 'utf8',
      });

    const without = index();
    expect(without.status, without.stderr).toBe(0);
    const lines = without.stderr.split('\n').filter((line) => line.includes('grammar'));
    expect(lines).toEqual([
      expect.stringMatching(/^warning: the swift grammar could not be loaded \(tree-sitter-swift: /),
    ]);
    const command = /npm install (tree-sitter-swift@\S+) --ignore-scripts in your project/.exec(lines[0]!);
    expect(command, lines[0]).not.toBeNull();

    // The command the warning names, as a user runs it in the app (the registry alone).
    await promisify(execFile)(
      'npm',
      ['install', command![1]!, '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'],
      { cwd: app, encoding: 'utf8' },
    );
    const fixed = index();
    expect(fixed.status, fixed.stderr).toBe(0);
    expect(fixed.stderr).not.toMatch(/grammar/);
    const found = JSON.parse(npx(['oc-vector-search', 'CORSMiddleware', '--json'], swift)) as {
      results: { type: string; name: string }[];
    };
    expect(found.results[0]).toMatchObject({ type: 'class', name: 'CORSMiddleware' });
  }, 300_000);
});
