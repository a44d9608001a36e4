/**
 * Prints one plain closing line, "N passed, N failed, N skipped", after
 * vitest's own summary: the line CI systems that do not know vitest read.
 * Under it, one line per reason tests were skipped for (the reason in a
 * skipped test's name: test/helpers/skip-reason.ts), with how many: a skipped
 * test says why, and is never counted as passed.
 */
import type { Reporter, RunnerTask, RunnerTestFile } from 'vitest';
import { skipReason } from '../helpers/skip-reason.js';

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  /** Skipped tests by their reason. */
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
      const reason = skipReason(task.name);
      if (reason) counts.reasons.set(reason, (counts.reasons.get(reason) ?? 0) + 1);
    }
  }
}

/** The closing lines for these files: the counts, then each reason for a skip. */
function summaryLines(files: RunnerTestFile[], errors: unknown[]): string[] {
  const counts: Counts = { passed: 0, failed: 0, skipped: 0, reasons: new Map() };
  for (const file of files) {
    // A file that failed to load counts as a failure, not as zero tests.
    if (file.result?.state === 'fail' && file.tasks.length === 0) counts.failed++;
    countTests(file.tasks, counts);
  }
  counts.failed += errors.length;
  return [
    `tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`,
    ...[...counts.reasons].map(([reason, n]) => `skipped ${n}: ${reason}`),
  ];
}

export default class SummaryLineReporter implements Reporter {
  onFinished(files: RunnerTestFile[] = [], errors: unknown[] = []): void {
    process.stdout.write(`\n${summaryLines(files, errors).join('\n')}\n`);
  }
}
