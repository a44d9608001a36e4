/**
 * Runs a snippet of ES module code in a child Node process, so that a crash
 * (a signal such as SIGSEGV or SIGABRT) or a hang is seen as the child's end
 * and does not take the test runner down. The snippet may import
 * `ADDON` (the raw addon's path) and `DIST` (the built library's entry).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const ADDON = `${ROOT}build/Release/ocvector.node`;
export const DIST = `${ROOT}dist/index.js`;

export interface Isolated {
  /** Exit code; null when the child ended by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** True when the child was killed for running past the timeout. */
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

export function runIsolated(code: string, options: { timeout?: number; cwd?: string } = {}): Promise<Isolated> {
  const prelude = `const ADDON = ${JSON.stringify(ADDON)}; const DIST = ${JSON.stringify(DIST)};\n`;
  // A file, not --input-type with -e: worker threads inherit the options and would refuse them.
  const dir = mkdtempSync(join(tmpdir(), 'ocvector-isolated-'));
  const script = join(dir, 'child.mjs');
  writeFileSync(script, prelude + code);
  return runChild(['--expose-gc', script], { timeout: options.timeout ?? 30_000, cwd: options.cwd }).finally(() =>
    rmSync(dir, { recursive: true, force: true }),
  );
}

/** Runs `node <args>` in a child, killed (SIGKILL) past `timeout` ms: how it ended, never a rejection. */
export function runChild(
  args: readonly string[],
  options: { timeout: number; cwd?: string | undefined },
): Promise<Isolated> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...args],
      { cwd: options.cwd ?? ROOT, timeout: options.timeout, killSignal: 'SIGKILL', maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        const failure = error as
          | (Error & { code?: number | string; signal?: NodeJS.Signals | null; killed?: boolean })
          | null;
        resolve({
          code: failure ? (typeof failure.code === 'number' ? failure.code : null) : 0,
          signal: failure?.signal ?? null,
          timedOut: failure?.killed === true && failure.signal === 'SIGKILL',
          stdout,
          stderr,
        });
      },
    );
  });
}

/** Expects the child to have exited 0 by itself; returns its stdout parsed as JSON (the last line). */
export function settled(run: Isolated): unknown {
  if (run.code !== 0) {
    throw new Error(
      `the child ${run.timedOut ? 'hung (killed after its timeout)' : run.signal ? `crashed (${run.signal})` : `exited with ${run.code}`}: ${run.stderr.slice(-2_000)}`,
    );
  }
  const lines = run.stdout.trim().split('\n');
  return JSON.parse(lines.at(-1)!);
}
