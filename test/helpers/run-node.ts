/** Runs a Node script as a child process without blocking this one (which may be serving a fake model). */
import { execFile } from 'node:child_process';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function runNode(
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeout?: number },
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...args],
      { cwd: options.cwd, timeout: options.timeout ?? 60_000, ...(options.env ? { env: options.env } : {}) },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** The compiled CLIs, as a user runs them once the package is built. */
const CLI_DIR = new URL('../../dist/cli/', import.meta.url).pathname;

/**
 * Runs a built CLI (`oc-vector-index`, `ocvector`, …) without a terminal and
 * without the user's settings: no model server (a port nothing answers on)
 * and the built-in embedder, unless `env` says otherwise.
 */
export function runCli(
  bin: string,
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; timeout?: number },
): Promise<Run> {
  return runNode([`${CLI_DIR}${bin}.js`, ...args], {
    cwd: options.cwd,
    ...(options.timeout ? { timeout: options.timeout } : {}),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      OLLAMA_HOST: 'http://127.0.0.1:9',
      OCVECTOR_EMBEDDER: 'builtin',
      ...options.env,
    },
  });
}
