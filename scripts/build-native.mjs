#!/usr/bin/env node
// Provides the native addon. Runs as the package's `install` script and from
// scripts/setup.sh. An installed package on linux-x64 with glibc uses the
// prebuilt addon it ships (prebuilds/linux-x64: FAISS, OpenBLAS and OpenMP
// inside) when it loads here; otherwise, or with --build-from-source
// (`npm install --build-from-source`), it builds build/Release/ocvector.node
// with node-gyp against the system FAISS. Incremental: a configured build tree
// is only re-made, so a run with nothing changed takes about a second.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnFailure } from './spawn-failure.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const platform = `${process.platform}-${process.arch}`;
// A checkout builds its own sources: a prebuilt there would hide a change to native/.
const checkout = existsSync(join(root, '.git'));
const fromSource =
  checkout || process.argv.includes('--build-from-source') || process.env.npm_config_build_from_source === 'true';
const prebuilt = join(root, 'prebuilds', platform, 'ocvector.node');

if (!fromSource && existsSync(prebuilt)) {
  // Loaded in a child: a library missing or too new for this system's glibc fails here, not in the app.
  const probe = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(prebuilt)})`], { encoding: 'utf8' });
  if (probe.status === 0) {
    process.stdout.write(
      `ocvector: using the prebuilt addon for ${platform} (npm rebuild ocvector --build-from-source compiles one)\n`,
    );
    process.exit(0);
  }
  const reason =
    probe.stderr
      .trim()
      .split('\n')
      .find((line) => /Error|error/.test(line)) ?? probe.stderr.trim();
  process.stderr.write(
    `ocvector: the prebuilt addon for ${platform} does not load here (${reason}); building from source\n`,
  );
}

const faissHeaders = ['/usr/include/faiss/Index.h', '/usr/local/include/faiss/Index.h'];
if (!faissHeaders.some((path) => existsSync(path))) {
  // In a checkout the set-up script installs everything; an npm user gets the commands for the system.
  const prebuiltNote = existsSync(prebuilt)
    ? `the prebuilt addon for ${platform} does not load on this system`
    : `no prebuilt addon matches ${platform} (prebuilt: linux-x64 with glibc 2.36 or later)`;
  process.stderr.write(
    [
      `ocvector: cannot build the native addon: ${prebuiltNote}, and FAISS is not installed (no faiss/Index.h).`,
      'Possible solutions:',
      ...(checkout ? ['  - bash scripts/setup.sh (installs FAISS and OpenBLAS with apt-get, builds everything);'] : []),
      '  - Debian or Ubuntu: sudo apt-get install -y libfaiss-dev libopenblas-openmp-dev g++ make python3, then npm rebuild ocvector;',
      '  - elsewhere: install FAISS (a source build, or conda install -c pytorch faiss-cpu), build native/ with CMake',
      '    (docs/development.md, "Building against another FAISS") and point OCVECTOR_NATIVE_PATH at the ocvector.node it makes;',
      'Search still answers from the lexical index without the addon (oc-vector-search says so).',
      '',
    ].join('\n'),
  );
  process.exit(1);
}

// npm exports the path of its bundled node-gyp to scripts; outside npm, fall
// back to the copy that ships with npm next to this node binary.
function nodeGypCommand() {
  const candidates = [
    process.env.npm_config_node_gyp,
    join(
      dirname(process.execPath),
      '..',
      'lib',
      'node_modules',
      'npm',
      'node_modules',
      'node-gyp',
      'bin',
      'node-gyp.js',
    ),
  ];
  const script = candidates.find((path) => path && existsSync(path));
  return script ? [process.execPath, script] : ['node-gyp'];
}

function run(args) {
  const [command, ...prefix] = nodeGypCommand();
  const extra = [];
  // Build against the local Node headers when they are installed (no download).
  if (!process.env.npm_config_nodedir && existsSync('/usr/include/node/node_api.h')) {
    extra.push('--nodedir=/usr');
  }
  const result = spawnSync(command, [...prefix, ...args, ...extra], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    const hint =
      result.error?.code === 'ENOENT'
        ? ' (npm ships node-gyp: run npm rebuild ocvector, or install it with npm install -g node-gyp)'
        : '';
    process.stderr.write(`ocvector: ${spawnFailure(`node-gyp ${args.join(' ')}`, result)}${hint}\n`);
    process.exit(result.status ?? 1);
  }
}

const configured = existsSync(join(root, 'build', 'Makefile')) && existsSync(join(root, 'build', 'config.gypi'));
if (!configured) run(['configure']);
run(['build', '--jobs', 'max']);
