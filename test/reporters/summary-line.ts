/**
 * Prints one plain closing line, "N passed, N failed, N skipped", after
 * vitest's own summary: the line CI systems that do not know vitest read.
 */
import type { Reporter, RunnerTask, RunnerTestFile } from 'vitest';

function countTests(tasks: RunnerTask[], counts: { passed: number; failed: number; skipped: number }) {
  for (const task of tasks) {
    if (task.type === 'suite') {
      countTests(task.tasks, counts);
      continue;
    }
    const state = task.result?.state;
    if (state === 'pass') counts.passed++;
    else if (state === 'fail') counts.failed++;
    else counts.skipped++;
  }
}

export default class SummaryLineReporter implements Reporter {
  onFinished(files: RunnerTestFile[] = [], errors: unknown[] = []): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const file of files) {
      // A file that failed to load counts as a failure, not as zero tests.
      if (file.result?.state === 'fail' && file.tasks.length === 0) counts.failed++;
      countTests(file.tasks, counts);
    }
    counts.failed += errors.length;
    process.stdout.write(`\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}
