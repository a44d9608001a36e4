/**
 * Builds and drives bench/native/raw-faiss.cc: the binding's searches made by
 * plain C++ against the same libfaiss, in a long-lived child process that
 * answers one command at a time, so raw and binding can be measured in
 * alternating rounds.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';

export function buildRawBaseline(root: string, cacheDir: string): string {
  const binary = join(cacheDir, 'raw-faiss');
  const sources = [join(root, 'bench/native/raw-faiss.cc'), join(root, 'native/src/flat_search.cc')];
  const newest = Math.max(...sources.map((s) => statSync(s).mtimeMs));
  if (!existsSync(binary) || statSync(binary).mtimeMs < newest) {
    execFileSync(
      'g++',
      [
        '-O3',
        '-std=c++17',
        '-fopenmp',
        `-I${join(root, 'native/src')}`,
        ...sources,
        '-l:libfaiss.a',
        '-lblas',
        '-llapack',
        '-o',
        binary,
      ],
      { stdio: 'inherit' },
    );
  }
  return binary;
}

export type RawMode = 'flat1' | 'flat' | 'sliced' | 'hnsw';

export class RawBaseline {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #lines: Interface;
  readonly #pending: ((line: string) => void)[] = [];

  private constructor(child: ChildProcessWithoutNullStreams) {
    this.#child = child;
    this.#lines = createInterface({ input: child.stdout });
    this.#lines.on('line', (line) => this.#pending.shift()?.(line));
    child.stderr.pipe(process.stderr);
  }

  static async start(binary: string, args: (string | number)[]): Promise<RawBaseline> {
    const child = spawn(binary, args.map(String), {
      // The binding's default, so both sides run with the same OpenMP policy.
      env: { ...process.env, OMP_WAIT_POLICY: process.env.OMP_WAIT_POLICY ?? 'PASSIVE' },
    });
    const raw = new RawBaseline(child);
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) => reject(new Error(`raw-faiss exited with ${code}`))),
    );
    await Promise.race([raw.#next(), exited]);
    return raw;
  }

  /** Per-query times of `count` single queries starting at query `first`. */
  single(mode: RawMode, first: number, count: number): Promise<number[]> {
    return this.#ask(`single ${mode} ${first} ${count}`);
  }

  /** Times of `repeats` batched searches of the first `count` queries. */
  batch(count: number, repeats: number): Promise<number[]> {
    return this.#ask(`batch ${count} ${repeats}`);
  }

  stop(): void {
    this.#child.stdin.end('quit\n');
    this.#lines.close();
  }

  async #ask(command: string): Promise<number[]> {
    const answer = this.#next();
    this.#child.stdin.write(`${command}\n`);
    return JSON.parse(await answer) as number[];
  }

  #next(): Promise<string> {
    return new Promise((resolve) => this.#pending.push(resolve));
  }
}
