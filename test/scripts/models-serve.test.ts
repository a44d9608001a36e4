/**
 * `npm run models -- --serve` stops with whoever started it (docs/models.md): SIGTERM to npm (which
 * passes it only to the `sh -c` it runs the script in), npm killed outright, or SIGTERM to the
 * script itself stop the server and the model runners it started, within a few seconds.
 *
 * The server is a stand-in: a prepared cache (OCVECTOR_CACHE) whose `ollama` answers
 * /api/version, starts two "runners" and leaves them behind when it is stopped (the worst case),
 * and writes down the process ids to check.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = join(ROOT, 'scripts/models.sh');

/** What the stand-in writes down once it serves. */
interface Serving {
  script: number;
  server: number;
  runners: number[];
}

const FAKE_OLLAMA = `#!/usr/bin/env node
const { spawn } = require('node:child_process');
const { writeFileSync } = require('node:fs');
const http = require('node:http');
if (process.argv[2] !== 'serve') process.exit(2);
const [host, port] = process.env.OLLAMA_HOST.split(':');
const runners = [0, 1].map(() => spawn('sleep', ['600'], { stdio: 'ignore' }).pid);
http.createServer((request, response) => response.end('{"version":"0.0.0"}')).listen(Number(port), host, () =>
  writeFileSync(process.env.OCVECTOR_CACHE + '/serving.json', JSON.stringify({ script: process.ppid, server: process.pid, runners })),
);
`;

/** Runs the script's pins and paths (from `# --- pins` to `STAMP=`) and prints the three it checks. */
const PRINT_DEFINITIONS = `eval "$(sed -n '/^# --- pins/,/^STAMP=/p' "$1")"
printf '%s\\n%s\\n%s' "$OLLAMA_BIN" "$STAMP" "$FINGERPRINT"`;

/**
 * A cache that `scripts/models.sh --status` calls prepared, with the stand-in as its Ollama: the
 * paths and the ready stamp come from the script's own definitions, so they cannot drift from it.
 */
function preparedCache(): string {
  const cache = mkdtempSync(join(tmpdir(), 'ocvector-models-'));
  const definitions = execFileSync('bash', ['-c', PRINT_DEFINITIONS, 'bash', SCRIPT], {
    env: { ...process.env, OCVECTOR_CACHE: cache },
    encoding: 'utf8',
  });
  const [bin = '', stamp = '', fingerprint = ''] = definitions.split('\n');
  mkdirSync(dirname(bin), { recursive: true });
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(bin, FAKE_OLLAMA);
  chmodSync(bin, 0o755);
  writeFileSync(stamp, fingerprint);
  execFileSync('bash', [SCRIPT, '--status'], { env: { ...process.env, OCVECTOR_CACHE: cache }, stdio: 'ignore' });
  return cache;
}

/** Whether a process is gone: no such process, or a zombie nobody has reaped yet. */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  const stat = `/proc/${pid}/stat`;
  return existsSync(stat) && / Z /.test(readFileSync(stat, 'utf8').replace(/^.*\)/, ''));
}

async function within(ms: number, done: () => boolean): Promise<void> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 100));
}

const started: { cache: string; npm: ChildProcess; serving?: Serving }[] = [];
afterEach(() => {
  for (const { cache, npm, serving } of started.splice(0)) {
    for (const pid of [npm.pid, serving?.script, serving?.server, ...(serving?.runners ?? [])]) {
      if (pid !== undefined && !gone(pid)) process.kill(pid, 'SIGKILL');
    }
    rmSync(cache, { recursive: true, force: true });
  }
});

/** `npm run --silent models -- --serve`, as docs/models.md says, once its line is printed. */
async function serveThroughNpm(): Promise<{ npm: ChildProcess; serving: Serving }> {
  const cache = preparedCache();
  const npm = spawn('npm', ['run', '--silent', 'models', '--', '--serve'], {
    cwd: ROOT,
    env: { ...process.env, OCVECTOR_CACHE: cache },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run: (typeof started)[number] = { cache, npm };
  started.push(run);
  let out = '';
  npm.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  npm.stderr?.resume();
  await within(30_000, () => out.includes('\n') || npm.exitCode !== null);
  expect(out).toMatch(/^OLLAMA_HOST=http:\/\/127\.0\.0\.1:\d+ LLM=\S+ EMBEDDER=\S+\n/);
  const serving = JSON.parse(readFileSync(join(cache, 'serving.json'), 'utf8')) as Serving;
  run.serving = serving;
  expect([serving.script, serving.server, ...serving.runners].filter(gone)).toEqual([]);
  return { npm, serving };
}

/** Sends `signal` to npm and waits for it to exit. */
async function signalNpm(npm: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const exited = once(npm, 'exit');
  npm.kill(signal);
  await exited;
}

/** The script, the server and its runners: all gone within a few seconds. */
async function expectAllGone(serving: Serving): Promise<void> {
  const pids = [serving.script, serving.server, ...serving.runners];
  await within(5_000, () => pids.every(gone));
  expect(pids.filter((pid) => !gone(pid))).toEqual([]);
}

describe('scripts/models.sh --serve stops with whoever started it', () => {
  it('SIGTERM to npm: the script, the server and its runners are gone within a few seconds', async () => {
    const { npm, serving } = await serveThroughNpm();
    await signalNpm(npm, 'SIGTERM');
    await expectAllGone(serving);
  }, 60_000);

  it('npm killed outright (SIGKILL): the server and its runners are gone within a few seconds', async () => {
    const { npm, serving } = await serveThroughNpm();
    await signalNpm(npm, 'SIGKILL');
    await expectAllGone(serving);
  }, 60_000);

  it('SIGTERM to the script: it stops the server and the runners the server left behind', async () => {
    const { serving } = await serveThroughNpm();
    process.kill(serving.script, 'SIGTERM');
    await expectAllGone(serving);
  }, 60_000);
});
