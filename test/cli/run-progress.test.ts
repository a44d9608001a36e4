/**
 * The progress of a run with an analysis model (issue 57): a line off a terminal while the
 * model takes minutes to answer, and the time left from the pace it answers at in this run,
 * not from the dry run's assumed 4 s a call.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IndexReporter } from '../../src/cli/index-report.js';
import { RunProgress } from '../../src/cli/run-progress.js';
import { makeStyle } from '../../src/cli/terminal.js';
import type { AnalysisEvent } from '../../src/analysis/events.js';
import type { IndexEvent } from '../../src/indexing/events.js';

const runStart: IndexEvent = {
  type: 'run-start',
  root: '/r',
  indexDir: '/r/.ocvector',
  embedder: 'builtin',
  mode: 'full',
};
const scanDone = (candidates: number): IndexEvent => ({
  type: 'scan-done',
  files: candidates,
  candidates,
  deleted: 0,
  excluded: 0,
});
const analysis = (event: AnalysisEvent): IndexEvent => ({ type: 'analysis', event });
const asking = (path: string, calls = 1) => analysis({ type: 'llm-asking', path, calls });
const answer = (path: string, attempt = 0, outcome: 'valid' | 'invalid-json' = 'valid') =>
  analysis({ type: 'llm-answer', path, part: 0, attempt, outcome, seconds: 1 });
const enriched = (path: string) =>
  analysis({ type: 'llm-enriched', path, matched: 1, dropped: 0, parts: 1, cached: false });

/** A clock the test moves. */
function clock() {
  let now = 0;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

describe('the progress of a run with a model', () => {
  it('says the model has not answered yet, and for how long, before its first answer', () => {
    const time = clock();
    const progress = new RunProgress(time.now);
    for (const event of [runStart, scanDone(3), asking('a.ts'), asking('b.ts'), asking('c.ts')])
      progress.onEvent(event);
    time.advance(8 * 60_000);
    expect(progress.line()).toEqual({
      done: 0,
      total: 3,
      detail: 'model 0/3 calls, waiting for its first answer (8 min 0 s)',
      // No time left to tell: the files done so far (a README, not asked about) set no pace for the model.
      etaMs: null,
    });
  });

  it('estimates the time left from the calls answered in this run', () => {
    const time = clock();
    const progress = new RunProgress(time.now);
    progress.onEvent(runStart);
    progress.onEvent(scanDone(20));
    for (let i = 0; i < 20; i++) progress.onEvent(asking(`f${i}.ts`));
    // A small model on a CPU: 8 minutes for the first answer, where a dry run assumes 4 s a call.
    time.advance(8 * 60_000);
    progress.onEvent(answer('f0.ts'));
    progress.onEvent(enriched('f0.ts'));
    progress.onEvent({ type: 'progress', done: 1, total: 20, path: 'f0.ts' });
    expect(progress.line()).toEqual({
      done: 1,
      total: 20,
      detail: 'model 1/20 calls, 8 min 0 s a call',
      etaMs: 19 * 8 * 60_000,
    });
    // Faster once the model is loaded: the pace is measured over every call so far.
    time.advance(60_000);
    progress.onEvent(answer('f1.ts'));
    expect(progress.line().etaMs).toBe(18 * ((9 * 60_000) / 2));
  });

  it('counts a question done when its answer is good or its retry is not, and drops what a fallback leaves', () => {
    const time = clock();
    const progress = new RunProgress(time.now);
    progress.onEvent(runStart);
    progress.onEvent(scanDone(2));
    progress.onEvent(asking('a.ts', 3));
    progress.onEvent(asking('b.ts', 1));
    time.advance(10_000);
    progress.onEvent(answer('a.ts', 0, 'invalid-json')); // retried: still one question open
    expect(progress.line().detail).toMatch(/^model 0\/4 calls/);
    progress.onEvent(answer('a.ts', 1, 'invalid-json')); // given up: the file falls back
    progress.onEvent(analysis({ type: 'llm-fallback', path: 'a.ts', reason: 'invalid-json', detail: 'x' }));
    // Its two other parts are not asked.
    expect(progress.line()).toMatchObject({ detail: 'model 1/2 calls, 10.0 s a call', etaMs: 10_000 });
  });

  it('plans the files not analysed yet from those that are', () => {
    const time = clock();
    const progress = new RunProgress(time.now);
    progress.onEvent(runStart);
    progress.onEvent(scanDone(10));
    progress.onEvent(asking('a.ts', 2));
    progress.onEvent(asking('b.ts', 2));
    // One file needed no call (its answers were in the cache).
    progress.onEvent(analysis({ type: 'llm-enriched', path: 'c.ts', matched: 1, dropped: 0, parts: 1, cached: true }));
    progress.onEvent({ type: 'progress', done: 1, total: 10, path: 'c.ts' });
    // 4 calls for 3 files known; 7 files to go at 4/3 a file.
    expect(progress.line().detail).toMatch(/^model 0\/13 calls/);
  });

  it('shows nothing of a model where none is asked, or once it has failed for the run', () => {
    const progress = new RunProgress(clock().now);
    progress.onEvent(runStart);
    progress.onEvent(scanDone(2));
    expect(progress.line()).toEqual({ done: 0, total: 2, detail: '' });
    progress.onEvent(asking('a.ts'));
    progress.onEvent(analysis({ type: 'llm-circuit-open', failures: 3, detail: 'down' }));
    expect(progress.line()).toEqual({ done: 0, total: 2, detail: '' });
  });
});

describe('the progress line off a terminal', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function pipe() {
    const written: string[] = [];
    const stream = { isTTY: false, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream;
    return { stream, written };
  }

  it('is printed at the start and every 5 s while no file finishes, and stops with the run', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
    const { stream, written } = pipe();
    const reporter = new IndexReporter({ style: makeStyle(false), progress: true, quiet: false, stream });
    reporter.onEvent(runStart);
    reporter.onEvent(scanDone(3));
    expect(written).toEqual(['0% 0/3 files\n']);
    for (const path of ['a.ts', 'b.ts', 'c.ts']) reporter.onEvent(asking(path));
    vi.advanceTimersByTime(60_000);
    // A line every 5 s though nothing finished, each saying how long the model has been asked.
    expect(written.length).toBeGreaterThanOrEqual(12);
    expect(written.at(-1)).toBe('0% 0/3 files  model 0/3 calls, waiting for its first answer (1 min 0 s)\n');
    expect(written.filter((line) => line.includes('waiting for its first answer')).length).toBeGreaterThanOrEqual(11);

    reporter.onEvent(answer('a.ts'));
    reporter.onEvent(enriched('a.ts'));
    reporter.onEvent({ type: 'progress', done: 1, total: 3, path: 'a.ts' });
    vi.advanceTimersByTime(5_000);
    expect(written.at(-1)).toMatch(
      /^33% 1\/3 files {2}[\d.]+\/s {2}ETA 2 min 0 s {2}model 1\/3 calls, 1 min 0 s a call\n$/,
    );

    reporter.onEvent({ type: 'run-aborted', reason: 'interrupted' });
    const lines = written.length;
    vi.advanceTimersByTime(60_000);
    expect(written).toHaveLength(lines);
    reporter.finish();
  });
});
