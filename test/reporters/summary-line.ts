/**
 * Prints one plain closing line, "N passed, N failed, N skipped", after
 * vitest's own summary: the line CI systems that do not know vitest read.
 * Under it, one line per reason a test was skipped for (the note of a
 * `context.skip(note)`), with how many it skipped: a test that did not run
 * says why, and is never counted as passed.
 */
import type { Reporter, RunnerTask, RunnerTestFile } from 'vitest';

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  /** Skipped tests by their note. */
  reasons: Map<string, number>;
}

function countTests(tasks: RunnerTask[], counts: Counts) {
  for (const task of tasks) {
    if (task.type === 'suite') {
      countTests(task.tasks, counts);
      continue;
    }
    const state = task.result?.state;
    if (state === 'pass') counts.passed++;
    else if (state === 'fail') counts.failed++;
    else {
      counts.skipped++;
      // The note of context.skip(note): vitest keeps it on the result, without it in the type.
      const note = (task.result as { note?: string } | undefined)?.note;
      if (note) counts.reasons.set(note, (counts.reasons.get(note) ?? 0) + 1);
    }
  }
}

/** The closing lines for these files: the counts, then each reason for a skip. */
export function summaryLines(files: RunnerTestFile[], errors: unknown[]): string[] {
  const counts: Counts = { passed: 0, failed: 0, skipped: 0, reasons: new Map() };
  for (const file of files) {
    // A file that failed to load counts as a failure, not as zero tests.
    if (file.result?.state === 'fail' && file.tasks.length === 0) counts.failed++;
    countTests(file.tasks, counts);
  }
  counts.failed += errors.length;
  return [
    `tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`,
    ...[...counts.reasons].map(([note, n]) => `skipped ${n}: ${note}`),
  ];
}

export default class SummaryLineReporter implements Reporter {
  onFinished(files: RunnerTestFile[] = [], errors: unknown[] = []): void {
    process.stdout.write(`\n${summaryLines(files, errors).join('\n')}\n`);
  }
}
