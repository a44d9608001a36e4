/** Text for `oc-vector-index --status` and `--dry-run`. */
import type { DryRunGroup, DryRunReport } from '../indexing/dry-run.js';
import type { IndexStatus, RepositoryStatus } from '../indexing/status.js';
import { formatBytes, formatCount, formatDuration, plural, type Style } from './terminal.js';

/** Stale paths listed by name; past this many only counted. */
const LISTED = 10;

export function renderStatus(status: IndexStatus, style: Style): string {
  const lines = [`${style.bold('index')} ${status.indexDir}`];
  if (status.repositories.length <= 1) lines.push(`  root       ${status.root}`);
  else {
    lines.push(`  repositories ${status.repositories.length}`);
    for (const repository of status.repositories) lines.push(`    ${renderRepository(repository)}`);
  }
  const run = status.lastRun;
  lines.push(
    `  updated    ${run ? `${run.finishedAt} (${run.mode} run, ${formatDuration(run.durationMs)})` : 'never completed'}`,
  );
  lines.push(
    `  embedder   ${status.embedder ? `${status.embedder.id} (${status.embedder.dimension} dimensions)${status.embedder.host ? ` at ${status.embedder.host}` : ''}` : 'none yet'}`,
  );
  lines.push(
    `  analysis   ${run?.analysisModel ? `syntax tree + ${run.analysisModel} (${run.modelCalls} calls in the last run)` : 'syntax tree only'}`,
  );
  const f = status.files;
  lines.push(`  files      ${formatCount(f.indexed)} indexed, ${f.skipped} skipped, ${f.failed} failed`);
  lines.push(`  elements   ${formatCount(status.elements)}`);
  for (const [language, group] of Object.entries(status.languages).sort((a, b) => b[1].elements - a[1].elements)) {
    lines.push(
      `    ${language.padEnd(12)} ${counted(group.files, 'file', 6)} ${counted(group.elements, 'element', 8).trimEnd()}`,
    );
  }
  lines.push(
    `  vectors    ${status.vectorIndex.description}, ${status.vectorIndex.file ? `file at generation ${status.vectorIndex.fileGeneration} (database at ${status.generation})` : 'no file yet'}`,
  );
  lines.push(
    `  size       database ${formatBytes(status.sizeBytes.database)}, vectors ${formatBytes(status.sizeBytes.vectors)}`,
  );
  const { modified, deleted, added } = status.stale;
  const staleCount = modified.length + deleted.length + added.length;
  if (staleCount === 0) lines.push(`  stale      ${style.line('none: the index matches the files')}`);
  else {
    lines.push(
      `  ${style.warn('stale')}      ${modified.length} modified, ${deleted.length} deleted, ${added.length} new since indexing (run oc-vector-index to update)`,
    );
    for (const [mark, paths] of [
      ['M', modified],
      ['D', deleted],
      ['A', added],
    ] as const) {
      for (const path of paths.slice(0, LISTED)) lines.push(`    ${mark} ${path}`);
      if (paths.length > LISTED) lines.push(`    ${mark} … ${paths.length - LISTED} more`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export function renderDryRun(report: DryRunReport, style: Style): string {
  const f = report.files;
  const lines = [
    `${style.bold('dry run')} ${report.root} ${style.dim(`(nothing written; index at ${report.indexDir})`)}`,
  ];
  lines.push(
    `  files      ${formatCount(f.scanned)} scanned: ${formatCount(f.toIndex)} to index, ${formatCount(f.unchanged)} unchanged, ${f.toRemove} to remove, ${f.skipped} to skip, ${formatCount(f.excluded)} excluded`,
  );
  lines.push(
    `  elements   ${formatCount(report.elements)} in the files to index; ${formatCount(report.documentsToEmbed)} need a new vector`,
  );
  lines.push(`  embedder   ${report.embedder}: ${embedderWork(report)}`);
  lines.push(
    `  analysis   ${report.analysisModel ? `${report.analysisModel}: ${plural(report.calls.model, 'model call')}` : 'syntax tree only (no model calls)'}`,
  );
  lines.push(...groupTable('language', report.byLanguage), ...groupTable('directory', report.byDirectory));
  const e = report.estimate;
  lines.push(
    `  estimate   ${formatDuration(e.totalMs)} (analysis ${formatDuration(e.analysisMs)}, embedding ${formatDuration(e.embeddingMs)}, model ${formatDuration(e.modelMs)}, writes ${formatDuration(e.writeMs)})`,
  );
  lines.push(`             ${style.dim(`assumes ${e.assumptions}`)}`);
  // A model's pace depends on the machine (minutes a call for a small model on a CPU): the run measures it.
  if (report.calls.model > 0)
    lines.push(`             ${style.dim("the run's progress gives the time left from the model's own pace")}`);
  return `${lines.join('\n')}\n`;
}

function groupTable(title: string, groups: Record<string, DryRunGroup>): string[] {
  const entries = Object.entries(groups).sort((a, b) => b[1].elements - a[1].elements);
  if (entries.length === 0) return [];
  const lines = [`  by ${title}`];
  for (const [name, group] of entries) {
    lines.push(
      `    ${name.padEnd(16)} ${counted(group.files, 'file', 6)} ${counted(group.elements, 'element', 8)} ${counted(group.modelCalls, 'model call', 6).trimEnd()}`,
    );
  }
  return lines;
}

/**
 * What the embedder will do: requests to its server, or, for one that runs in this process (the
 * built-in), the vectors it computes here, where "0 requests" beside thousands of new vectors
 * would read as nothing to do.
 */
function embedderWork(report: DryRunReport): string {
  if (report.calls.embedding > 0) return plural(report.calls.embedding, 'request');
  if (report.documentsToEmbed === 0) return 'nothing to embed';
  return `${plural(report.documentsToEmbed, 'vector')} computed in this process (no requests)`;
}

/** A count and its word, singular for 1, as a table column: the number right-aligned, the word padded. */
function counted(n: number, word: string, width: number): string {
  return `${formatCount(n).padStart(width)} ${(n === 1 ? word : `${word}s`).padEnd(word.length + 1)}`;
}

/** One repository in a line: name, files, elements, commit, when, where. */
function renderRepository(repository: RepositoryStatus): string {
  const commit = repository.commit ? ` at ${repository.commit.slice(0, 12)}` : '';
  const when = repository.indexedAt ? `, indexed ${repository.indexedAt}` : ', never completed';
  return `${repository.name.padEnd(16)} ${counted(repository.files, 'file', 6)} ${counted(repository.elements, 'element', 8).trimEnd()}${commit}${when}  ${repository.root}`;
}
