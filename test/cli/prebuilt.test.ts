/**
 * The packed tarball, installed into an empty directory, works with the
 * prebuilt addon it ships: nothing is compiled for ocvector, and the addon
 * needs no library from outside the package beyond the C and C++ runtimes.
 *
 * Installed with --ignore-scripts: no dependency's install script runs, so
 * ocvector's own cannot build anything either. better-sqlite3 (whose
 * prebuilt binaries come from GitHub, out of reach offline) and tree-sitter
 * (whose prebuilt binary needs a newer libstdc++ than Debian 12's) get the
 * builds of this checkout, the same versions; the grammars' own prebuilt
 * binaries load as they are.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_LIBRARIES } from '../../scripts/base-libraries.mjs';
import { searchFixtureFiles } from '../helpers/search-repo.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const supported = process.platform === 'linux' && process.arch === 'x64';

describe.runIf(supported)('the packed tarball in an empty directory (linux-x64)', () => {
  const work = mkdtempSync(join(tmpdir(), 'ocvector-tarball-'));
  const app = join(work, 'app');
  const installed = join(app, 'node_modules', 'ocvector');
  const node = (args: string[], cwd = app) => execFileSync(process.execPath, args, { cwd, encoding: 'utf8' });

  beforeAll(() => {
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
    execFileSync(
      'npm',
      ['install', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', join(work, pack.filename)],
      { cwd: app, stdio: 'pipe' },
    );
    for (const dependency of ['better-sqlite3', 'tree-sitter']) useCheckoutBuild(dependency);
  }, 300_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** A dependency's native build from this checkout, into the app, where the versions match. */
  const useCheckoutBuild = (dependency: string) => {
    const at = (base: string) => join(base, 'node_modules', dependency);
    const version = (dir: string) =>
      (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
    const target = existsSync(at(installed)) ? at(installed) : at(app);
    expect(version(target), `${dependency} as in the lock file`).toBe(version(at(ROOT)));
    cpSync(join(at(ROOT), 'build', 'Release'), join(target, 'build', 'Release'), {
      recursive: true,
      filter: (path) => !path.includes('/obj.target'),
    });
  };

  it('ships the addon with FAISS, OpenBLAS and OpenMP beside it, and builds nothing', () => {
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

  it('loads the prebuilt addon and its own BLAS, and runs the Quick start: index a directory, search it', () => {
    const info = JSON.parse(
      node([
        '--input-type=module',
        '-e',
        "const o = await import('ocvector'); console.log(JSON.stringify(o.blasInfo()))",
      ]),
    ) as { library: string; vendor: string };
    expect(info.vendor).toBe('openblas');
    expect(info.library.startsWith(join(installed, 'prebuilds', 'linux-x64'))).toBe(true);

    const project = join(work, 'project');
    for (const [path, content] of Object.entries(searchFixtureFiles())) {
      mkdirSync(join(project, path, '..'), { recursive: true });
      writeFileSync(join(project, path), content);
    }
    const bin = (name: string) => join(installed, 'dist', 'cli', `${name}.js`);
    node([bin('oc-vector-index'), project, '--no-llm', '--embedder', 'builtin'], project);
    const output = JSON.parse(node([bin('oc-vector-search'), 'hash a password with a salt', '--json'], project)) as {
      results: { path: string }[];
    };
    expect(output.results.length).toBeGreaterThan(0);
    expect(output.results[0]!.path).toMatch(/password|auth|crypto/);
  });
});
