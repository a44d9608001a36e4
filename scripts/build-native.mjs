#!/usr/bin/env node
// Builds the native addon (build/Release/ocvector.node) with node-gyp against
// the system FAISS. Runs as the package's `install` script and from
// scripts/setup.sh. Incremental: a configured build tree is only re-made, so a
// run with nothing changed takes about a second.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const faissHeaders = ['/usr/include/faiss/Index.h', '/usr/local/include/faiss/Index.h'];
if (!faissHeaders.some((path) => existsSync(path))) {
  process.stderr.write(
    [
      'ocvector: cannot build the native addon: FAISS is not installed (no faiss/Index.h).',
      'Possible solutions:',
      '  - run `bash scripts/setup.sh` in the ocvector checkout (installs it with apt-get);',
      '  - or: sudo apt-get install -y libfaiss-dev libopenblas-openmp-dev g++ make python3;',
      '  - or, for a FAISS of your own (e.g. with GPU support): npm run build:cmake',
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
    process.stderr.write(`ocvector: node-gyp ${args.join(' ')} failed (exit ${result.status ?? result.signal})\n`);
    process.exit(result.status ?? 1);
  }
}

const configured = existsSync(join(root, 'build', 'Makefile')) && existsSync(join(root, 'build', 'config.gypi'));
if (!configured) run(['configure']);
run(['build', '--jobs', 'max']);
