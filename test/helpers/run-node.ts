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
