/**
 * `scripts/setup.sh`'s decisions before it builds anything (docs/install.md): a Node.js older
 * than `engines` stops it before anything is installed; clang-format, which the lint step
 * needs to check native/, is installed with the FAISS packages when it can be, and when it
 * cannot, only a note says how. The script runs on a copy of itself, with stand-ins on PATH for
 * the commands that would change the machine (apt-get, update-alternatives, npm) and for
 * those whose answer each case sets (id, dpkg-query, node --version); the build steps are
 * empty scripts.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
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
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STAND_INS = ['id', 'apt-get', 'sudo', 'dpkg-query', 'update-alternatives', 'npm', 'node'];

interface Machine {
  /** What `id -u` answers. */
  uid: number;
  /** The Debian packages dpkg-query reports as not installed. */
  missing?: string[];
  /** What `node --version` answers (default: the running Node.js). */
  nodeVersion?: string;
}

let work: string | undefined;
afterEach(() => {
  if (work) rmSync(work, { recursive: true, force: true });
  work = undefined;
});

/** Runs a copy of scripts/setup.sh on a machine without clang-format: its exit, stderr and the commands it ran. */
function runSetup(machine: Machine) {
  work = mkdtempSync(join(tmpdir(), 'ocvector-setup-'));
  const clone = join(work, 'clone');
  const bin = join(work, 'bin');
  const log = join(work, 'commands.log');
  for (const dir of ['scripts', 'node_modules/typescript/bin'].map((path) => join(clone, path)))
    mkdirSync(dir, { recursive: true });
  mkdirSync(bin);
  copyFileSync(join(ROOT, 'scripts/setup.sh'), join(clone, 'scripts/setup.sh'));
  copyFileSync(join(ROOT, 'package.json'), join(clone, 'package.json'));
  writeFileSync(join(clone, 'package-lock.json'), '{}');
  for (const step of [
    'scripts/build-native.mjs',
    'scripts/mark-bins-executable.mjs',
    'node_modules/typescript/bin/tsc',
  ])
    writeFileSync(join(clone, step), '');

  // Every system command but clang-format and the stand-ins.
  for (const name of readdirSync('/usr/bin'))
    if (!name.startsWith('clang-format') && !STAND_INS.includes(name))
      symlinkSync(join('/usr/bin', name), join(bin, name));
  const standIn = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/bash\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  const record = `echo "$(basename "$0") $*" >> '${log}'`;
  standIn('id', `[[ $1 == -u ]] && echo ${machine.uid}`);
  standIn('apt-get', `${record}`);
  standIn('update-alternatives', `${record}`);
  standIn('npm', `${record}`);
  standIn(
    'dpkg-query',
    `for package in ${(machine.missing ?? []).join(' ')}; do [[ " $* " == *" $package "* ]] && exit 1; done\nprintf 'install ok installed'`,
  );
  standIn(
    'node',
    `[[ $1 == --version ]] && { echo ${machine.nodeVersion ?? process.version}; exit 0; }\nexec '${process.execPath}' "$@"`,
  );

  const run = spawnSync('bash', [join(clone, 'scripts/setup.sh')], {
    env: { PATH: bin, HOME: work },
    encoding: 'utf8',
  });
  const commands = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
  return { status: run.status, stderr: run.stderr, commands };
}

const needed = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }
).engines.node.replace('>=', '');

describe('scripts/setup.sh', () => {
  it('stops before installing anything when Node.js is older than engines asks, naming both versions', () => {
    const { status, stderr, commands } = runSetup({ uid: 0, nodeVersion: 'v20.18.1', missing: ['libfaiss-dev'] });
    expect(status).toBe(1);
    expect(stderr).toContain(`Node.js 20.18.1 is too old: ocvector needs ${needed} or later`);
    expect(commands).toEqual([]);
  });

  it('goes on with a Node.js that engines allows', () => {
    const { status, stderr } = runSetup({ uid: 0, nodeVersion: `v${needed}` });
    expect(stderr).not.toMatch(/too old/);
    expect(status).toBe(0);
  });

  it('installs clang-format with apt-get, beside the FAISS packages, when it runs as root', () => {
    const { status, commands } = runSetup({ uid: 0, missing: ['libfaiss-dev'] });
    expect(status).toBe(0);
    expect(commands).toContain('apt-get install -y --no-install-recommends libfaiss-dev clang-format');
  });

  it('installs clang-format alone when it is all that is missing', () => {
    const { status, commands } = runSetup({ uid: 0 });
    expect(status).toBe(0);
    expect(commands).toContain('apt-get install -y --no-install-recommends clang-format');
  });

  it('says how to add clang-format, and goes on, when it may not install packages', () => {
    const { status, stderr, commands } = runSetup({ uid: 1000 });
    expect(stderr).toContain('clang-format is not installed, so the lint step skips native/');
    expect(stderr).toContain('sudo apt-get install -y --no-install-recommends clang-format');
    expect(commands.some((command) => command.startsWith('apt-get'))).toBe(false);
    expect(commands).toContain('npm install --no-save --no-fund --no-audit');
    expect(status).toBe(0);
  });

  it('stops with the sudo command, clang-format in it, when a FAISS package is missing and it may not install', () => {
    const { status, stderr, commands } = runSetup({ uid: 1000, missing: ['libfaiss-dev'] });
    expect(status).toBe(1);
    expect(stderr).toContain(
      'sudo apt-get update && sudo apt-get install -y --no-install-recommends libfaiss-dev clang-format',
    );
    expect(commands).toEqual([]);
  });
});
