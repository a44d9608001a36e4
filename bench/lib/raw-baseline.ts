/**
 * Builds and runs bench/native/raw-faiss.cc: the same searches as the binding,
 * in plain C++ against the same libfaiss, with the same OpenMP settings.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface RawFigures {
  threads: number;
  flatOneThread: number[];
  flatFaiss: number[];
  flatSliced: number[];
  flatBatched: number[];
  hnswSingles: number[];
}

export function buildRawBaseline(root: string, cacheDir: string): string {
  const binary = join(cacheDir, 'raw-faiss');
  const sources = [join(root, 'bench/native/raw-faiss.cc'), join(root, 'native/src/flat_search.cc')];
  const newest = Math.max(...sources.map((s) => statSync(s).mtimeMs));
  if (!existsSync(binary) || statSync(binary).mtimeMs < newest) {
    execFileSync('g++', [
      '-O3', '-std=c++17', '-fopenmp', `-I${join(root, 'native/src')}`, ...sources,
      '-l:libfaiss.a', '-lblas', '-llapack', '-o', binary,
    ], { stdio: 'inherit' });
  }
  return binary;
}

export function runRawBaseline(binary: string, args: (string | number)[]): RawFigures {
  const out = execFileSync(binary, args.map(String), {
    encoding: 'utf8',
    // The binding's default, so both sides run with the same OpenMP policy.
    env: { ...process.env, OMP_WAIT_POLICY: process.env.OMP_WAIT_POLICY ?? 'PASSIVE' },
    maxBuffer: 1 << 26,
  });
  return JSON.parse(out) as RawFigures;
}
