#!/usr/bin/env node
// Makes the prebuilt addon that the package ships for its own platform
// (prebuilds/linux-x64/): the addon built against the system FAISS (linked
// in statically by Debian's libfaiss-dev) with every shared library it needs
// beyond the C and C++ runtimes copied beside it (OpenBLAS with its LAPACK and
// Fortran runtime, the OpenMP runtime), each with its run path set to its own
// directory, so that an install on a machine without FAISS or OpenBLAS loads
// it as it is. Runs before `npm pack` (prepack); needs patchelf and ldd.
//
// First, on any platform: grammars/tree-sitter-swift/, a copy of what
// tree-sitter-swift's Node binding loads on linux-x64 (the prebuilt parser,
// its node types, its licence). tree-sitter-swift is an optional dependency:
// it depends on tree-sitter-cli, whose install script downloads a binary from
// GitHub, so where GitHub is out of reach npm leaves both out, and ocvector
// loads this copy instead (src/analysis/ast/parsers.ts).
//
//   npm run build:prebuilt               # builds the addon first if needed
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASE_LIBRARIES } from './base-libraries.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// --if-possible (prepack): a platform without a prebuilt packs without one, and says so.
const ifPossible = process.argv.includes('--if-possible');
const fail = (message) => {
  process.stderr.write(
    `ocvector prebuild: ${message}${ifPossible ? ' (the package is packed without a prebuilt addon)' : ''}\n`,
  );
  process.exit(ifPossible ? 0 : 1);
};

/** The grammars shipped as copies, and the platforms whose binaries are copied. */
const SHIPPED_GRAMMARS = [{ name: 'tree-sitter-swift', platforms: ['linux-x64'] }];

/** Copies one grammar into grammars/<name>/; returns why it could not, or undefined. */
function copyGrammar({ name, platforms }) {
  // No copy rather than a stale one.
  const out = join(root, 'grammars', name);
  rmSync(out, { recursive: true, force: true });
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const declared = manifest.optionalDependencies?.[name] ?? manifest.dependencies?.[name];
  let source;
  try {
    source = dirname(createRequire(join(root, 'package.json')).resolve(`${name}/package.json`));
  } catch {
    return `${name} is not installed here (npm install)`;
  }
  const installed = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8'));
  // The copy is of the version package.json pins, so that it matches the package whenever npm installs it.
  if (installed.version !== declared)
    return `${name} ${installed.version} is installed, package.json asks for ${declared} (npm install)`;
  for (const platform of platforms) {
    const prebuilt = join(source, 'prebuilds', platform);
    if (!existsSync(prebuilt)) return `${name} ${installed.version} has no prebuilt binary for ${platform}`;
    cpSync(prebuilt, join(out, 'prebuilds', platform), { recursive: true });
  }
  mkdirSync(join(out, 'src'), { recursive: true });
  copyFileSync(join(source, 'src', 'node-types.json'), join(out, 'src', 'node-types.json'));
  copyFileSync(join(source, 'LICENSE'), join(out, 'LICENSE'));
  // What node-gyp-build reads (the name), and the version the copy is of.
  const { version, license, homepage, repository } = installed;
  writeFileSync(
    join(out, 'package.json'),
    `${JSON.stringify(
      {
        name,
        version,
        private: true,
        description: `The native binding of ${name} ${version} for ${platforms.join(', ')}, copied by ocvector's scripts/prebuild.mjs: loaded when npm left the optional dependency out.`,
        license,
        homepage,
        repository,
      },
      null,
      2,
    )}\n`,
  );
  // Where the copy can load here, it must parse.
  if (platforms.includes(`${process.platform}-${process.arch}`)) {
    const probe = spawnSync(
      process.execPath,
      [
        '-e',
        `const Parser = require('tree-sitter'); const parser = new Parser();
         parser.setLanguage(require('node-gyp-build')(${JSON.stringify(out)}));
         if (parser.parse('struct A {}').rootNode.hasError) process.exit(1);`,
      ],
      { cwd: root, encoding: 'utf8' },
    );
    if (probe.status !== 0) return `the copy of ${name} does not parse: ${probe.stderr.trim()}`;
  }
  process.stdout.write(`ocvector prebuild: ${out} (${name} ${version}, ${platforms.join(', ')})\n`);
  return undefined;
}

for (const grammar of SHIPPED_GRAMMARS) {
  const problem = copyGrammar(grammar);
  if (!problem) continue;
  rmSync(join(root, 'grammars', grammar.name), { recursive: true, force: true });
  process.stderr.write(
    `ocvector prebuild: ${problem}${ifPossible ? ` (the package is packed without a copy of ${grammar.name})` : ''}\n`,
  );
  if (!ifPossible) process.exit(1);
}

if (process.platform !== 'linux' || process.arch !== 'x64')
  fail(`prebuilt addons are made on linux-x64 only, not ${process.platform}-${process.arch}`);
if (spawnSync('patchelf', ['--version']).status !== 0)
  fail('patchelf is missing (apt-get install -y patchelf, or bash scripts/setup.sh)');

const built = join(root, 'build', 'Release', 'ocvector.node');
if (!existsSync(built)) {
  const result = spawnSync(process.execPath, [join(root, 'scripts', 'build-native.mjs'), '--build-from-source'], {
    stdio: 'inherit',
  });
  if (result.status !== 0) fail('the addon could not be built');
}

const out = join(root, 'prebuilds', 'linux-x64');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
copyFileSync(built, join(out, 'ocvector.node'));

// Each library the addon needs, directly or through another, as the loader resolves it here.
const libraries = new Map();
for (const line of execFileSync('ldd', [built], { encoding: 'utf8' }).split('\n')) {
  const match = /^\s*(\S+) => (\/\S+)/.exec(line);
  if (match && !BASE_LIBRARIES.test(match[1])) libraries.set(match[1], match[2]);
}
for (const [soname, path] of libraries) {
  const target = join(out, soname);
  copyFileSync(realpathSync(path), target);
}
// DT_RPATH, not RUNPATH: searched before the system's directories for the
// libraries' own dependencies too (libopenblas -> libgfortran -> libquadmath).
execFileSync('patchelf', ['--force-rpath', '--set-rpath', '$ORIGIN', join(out, 'ocvector.node')]);
for (const soname of libraries.keys())
  execFileSync('patchelf', ['--force-rpath', '--set-rpath', '$ORIGIN', join(out, soname)]);

const unresolved = execFileSync('ldd', [join(out, 'ocvector.node')], { encoding: 'utf8' })
  .split('\n')
  .filter((line) => / => /.test(line))
  .map((line) => /^\s*(\S+) => (\S+)/.exec(line))
  .filter((match) => match && !BASE_LIBRARIES.test(match[1]) && !match[2].startsWith(`${out}/`));
if (unresolved.length > 0)
  fail(`libraries still resolved outside ${out}: ${unresolved.map((m) => `${m[1]} => ${m[2]}`).join(', ')}`);

const probe = spawnSync(
  process.execPath,
  [
    '-e',
    `const a = require(${JSON.stringify(join(out, 'ocvector.node'))}); console.log(JSON.stringify({ faiss: a.faissVersion, blas: a.blasInfo() }))`,
  ],
  { encoding: 'utf8' },
);
if (probe.status !== 0) fail(`the prebuilt addon does not load: ${probe.stderr.trim()}`);
const { faiss, blas } = JSON.parse(probe.stdout);
writeFileSync(
  join(out, 'manifest.json'),
  `${JSON.stringify({ platform: 'linux-x64', libc: 'glibc', napi: 8, faiss, blas: blas.config, libraries: [...libraries.keys()] }, null, 2)}\n`,
);
process.stdout.write(
  `ocvector prebuild: ${out} (FAISS ${faiss}, ${blas.config}; ${[...libraries.keys()].join(', ')})\n`,
);
