/**
 * Each benchmark's headline figures, kept as JSON under bench/out/ (ignored
 * by git) so that bench/suite.ts can gather one table from them. A quick run
 * writes `NAME-quick.json` and never replaces the figures of a full one.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeMachine } from '../../eval/lib/machine.js';

/** OCVECTOR_BENCH_OUT moves it (the suite's tests; figures of several machines kept apart). */
export const OUT_DIR = process.env.OCVECTOR_BENCH_OUT ?? fileURLToPath(new URL('../out', import.meta.url));

export interface Recorded<T> {
  bench: string;
  quick: boolean;
  machine: string;
  /** ISO time the run finished. */
  recordedAt: string;
  figures: T;
}

export function outFile(bench: string, quick: boolean): string {
  return join(OUT_DIR, `${bench}${quick ? '-quick' : ''}.json`);
}

export function writeFigures<T>(bench: string, figures: T, quick = false): void {
  mkdirSync(OUT_DIR, { recursive: true });
  const recorded: Recorded<T> = {
    bench,
    quick,
    machine: describeMachine(),
    recordedAt: new Date().toISOString(),
    figures,
  };
  writeFileSync(outFile(bench, quick), `${JSON.stringify(recorded, null, 2)}\n`);
}

/** The last recorded figures of a bench, or undefined when it has not run (or wrote another format). */
export function readFigures<T>(bench: string, quick: boolean): Recorded<T> | undefined {
  try {
    const recorded = JSON.parse(readFileSync(outFile(bench, quick), 'utf8')) as Partial<Recorded<T>>;
    return recorded.bench === bench && recorded.figures ? (recorded as Recorded<T>) : undefined;
  } catch {
    return undefined;
  }
}
