/**
 * A real Ollama serving real weights, for tests: the server `npm run models` built and the models
 * it imported (scripts/models.sh pins them; docs/models.md says what they are), started on a free
 * loopback port by `scripts/models.sh --serve` and stopped by stop(), as test/support/postgres.ts
 * does for PGlite.
 *
 * On a machine where `npm run models` has not run, startRealOllama() starts nothing and answers
 * `{ reason: 'not prepared' }` at once (a check of a stamp file: `npm test` stays as quick there),
 * and the tests written with realModelTests() are declared skipped, each with NOT_PREPARED in its
 * name (the summary line prints it). Where OCVECTOR_REAL_MODELS=required, or a prepared server
 * does not start, it throws: the file fails.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { it } from 'vitest';
import { skippedName } from './skip-reason.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/models.sh', import.meta.url));

/** How to get the real-model tests to run, for the reason a skipped one carries. */
const PREPARE_HINT = 'run `npm run models` (builds Ollama and imports the models, once), then `npm test`';

/** Why the real-model tests are skipped on a machine where the models are not prepared. */
export const NOT_PREPARED = `the real models are not prepared here: ${PREPARE_HINT}`;

export interface RealOllama {
  /** http://127.0.0.1:PORT */
  host: string;
  /** The chat model (Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF). */
  llm: string;
  /** The embedding model (all-MiniLM-L6-v2, 384 dimensions). */
  embedder: string;
  /** Stops the server (SIGTERM to the script's process group); the port is free after it. Idempotent. */
  stop(): Promise<void>;
}

export type RealOllamaStart =
  | { ollama: RealOllama; reason?: undefined }
  | { ollama?: undefined; reason: 'not prepared' };

/**
 * `it` for the tests that need the real server: each runs with it where startRealOllama() started
 * one, and is declared skipped (`it.skipIf`), with NOT_PREPARED in its name, where the models are
 * not prepared.
 */
export function realModelTests(
  started: RealOllamaStart,
): (name: string, body: (ollama: RealOllama) => Promise<void>, timeoutMs?: number) => void {
  const { ollama } = started;
  return (name, body, timeoutMs) =>
    it.skipIf(!ollama)(ollama ? name : skippedName(name, NOT_PREPARED), () => body(ollama!), timeoutMs);
}

/** The one line `scripts/models.sh --serve` prints once the server answers. */
const SERVE_LINE = /^OLLAMA_HOST=(http:\/\/127\.0\.0\.1:\d+) LLM=(\S+) EMBEDDER=(\S+)$/;

/**
 * Set to `required` (CI does, after `npm run models`), the real-model tests fail where the models
 * are not prepared, instead of being skipped.
 */
export const REQUIRED_VARIABLE = 'OCVECTOR_REAL_MODELS';

export async function startRealOllama(options: { startTimeoutMs?: number } = {}): Promise<RealOllamaStart> {
  if (!(await prepared())) {
    if (process.env[REQUIRED_VARIABLE] === 'required')
      throw new Error(`${REQUIRED_VARIABLE}=required, and ${NOT_PREPARED}`);
    return { reason: 'not prepared' };
  }

  // Its own process group, so that stop() ends the script and the server it started together.
  const child = spawn('bash', [SCRIPT, '--serve'], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4_000);
  });
  const stop = stopper(child);
  try {
    const line = await firstLine(child, options.startTimeoutMs ?? 60_000);
    const match = SERVE_LINE.exec(line);
    if (!match) throw new Error(`scripts/models.sh --serve printed ${JSON.stringify(line)}`);
    const [, host = '', llm = '', embedder = ''] = match;
    return { ollama: { host, llm, embedder, stop } };
  } catch (error) {
    await stop();
    throw new Error(`the real Ollama did not start: ${(error as Error).message}\n${stderr}`);
  }
}

/** `scripts/models.sh --status`: exit 0 once everything is built and imported (a stamp check, milliseconds). */
function prepared(): Promise<boolean> {
  return new Promise((resolve) => execFile('bash', [SCRIPT, '--status'], (error) => resolve(!error)));
}

function firstLine(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no line within ${timeoutMs} ms`)), timeoutMs);
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const end = out.indexOf('\n');
      if (end >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, end));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`scripts/models.sh --serve exited (${code}) before its line`));
    });
  });
}

function stopper(child: ChildProcess): () => Promise<void> {
  let stopped: Promise<void> | undefined;
  return () =>
    (stopped ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      const exited = once(child, 'exit');
      process.kill(-child.pid, 'SIGTERM');
      const timer = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    })());
}
