/**
 * oc-vector-index's side of the event stream: a progress bar while files
 * are indexed, warnings on stderr, and what the run did, collected for the
 * summary (text or --json).
 */
import { readFileSync } from 'node:fs';
import { unavailableGrammarIn } from '../analysis/ast/grammar-warning.js';
import { byPath } from '../files/scan.js';
import type { IndexEvent, IndexSummary } from '../indexing/events.js';
import { RunProgress } from './run-progress.js';
import { formatCount, formatDuration, plural, ProgressBar, type Style } from './terminal.js';
import { logLine } from '../mcp/log-line.js';

/** Warnings printed as they happen; the rest are counted in the summary. */
const WARNINGS_SHOWN = 10;

/**
 * How often the progress line is drawn again while nothing finishes (a model's first answer may
 * take minutes): the bar itself keeps to one line every 5 s off a terminal.
 */
const PROGRESS_TICK_MS = 1_000;

export interface RunReport {
  summary: IndexSummary;
  skipped: { path: string; reason: string; detail: string }[];
  failed: { path: string; error: string }[];
  /** Files analysed from the syntax tree alone because the model could not be used, by reason. */
  fallbacks: Record<string, number>;
  excluded: number;
}

export class IndexReporter {
  readonly skipped: RunReport['skipped'] = [];
  readonly failed: RunReport['failed'] = [];
  readonly fallbacks: Record<string, number> = {};
  excluded = 0;
  readonly #bar: ProgressBar | undefined;
  readonly #progress = new RunProgress();
  #ticking: NodeJS.Timeout | undefined;
  readonly #stream: NodeJS.WriteStream;
  readonly #style: Style;
  readonly #quiet: boolean;
  #warnings = 0;
  /** Files the model answered in this run (not from the cache): their answers stay if the run is stopped. */
  #filesAnswered = 0;
  readonly #keepsModelAnswers: boolean;
  /** Languages whose grammar could not be loaded, said once each. */
  readonly #unavailableGrammars = new Set<string>();

  /**
   * `stream`: where progress and warnings go (default stderr). `keepsModelAnswers`: the index keeps
   * the model's answers between runs (the embedded one), so a stopped run can say so.
   */
  constructor(options: {
    style: Style;
    progress: boolean;
    quiet: boolean;
    stream?: NodeJS.WriteStream;
    keepsModelAnswers?: boolean;
  }) {
    this.#style = options.style;
    this.#keepsModelAnswers = options.keepsModelAnswers ?? false;
    this.#quiet = options.quiet;
    this.#stream = options.stream ?? process.stderr;
    this.#bar = options.progress ? new ProgressBar(this.#stream, 'files') : undefined;
  }

  onEvent = (event: IndexEvent): void => {
    if (this.#bar) this.#trackProgress(event);
    switch (event.type) {
      case 'index-copied':
        this.#say(`started from a copy of the main worktree's index, ${this.#style.path(event.from)}`);
        break;
      case 'index-not-copied':
        this.#say(
          `the main worktree's index (${this.#style.path(event.from)}) could not be copied: ${event.why}; indexing afresh`,
        );
        break;
      case 'scan-done':
        this.excluded += event.excluded;
        break;
      case 'file-skipped':
        this.skipped.push({ path: event.path, reason: event.reason, detail: event.detail });
        break;
      case 'file-failed':
        this.failed.push({ path: event.path, error: event.error });
        this.#warn(`${event.path}: ${event.error}`);
        break;
      case 'run-aborted':
        if (this.#filesAnswered > 0 && this.#keepsModelAnswers)
          this.#say(
            `the model's answers for ${plural(this.#filesAnswered, 'file')} are kept in the index: the next run asks only about the other files`,
          );
        break;
      case 'analysis':
        if (event.event.type === 'llm-enriched' && !event.event.cached && event.event.parts > 0) this.#filesAnswered++;
        else if (event.event.type === 'llm-fallback')
          this.fallbacks[event.event.reason] = (this.fallbacks[event.event.reason] ?? 0) + 1;
        else if (event.event.type === 'llm-circuit-open')
          this.#warn(
            `the analysis model is unavailable (${event.event.detail}); going on with syntax-tree analysis only`,
          );
        else if (event.event.type === 'warning') this.#grammarWarning(event.event.message);
        break;
      case 'vector-index':
        if (event.event.type === 'index-not-written')
          this.#warn(`the vectors file was not written: ${event.event.reason}`);
        else if (event.event.type === 'index-moved')
          this.#say(
            `the index was moved or copied here from ${this.#style.path(event.event.from)}: its repositories there are indexed from ${this.#style.path(event.event.to)} now, and their unchanged files kept`,
          );
        else if (event.event.type === 'repository-outside')
          this.#warn(
            logLine(
              `the index records the repository ${event.event.repository} at ${event.event.root}, outside ${event.event.home}: it is not read, searched or indexed from here (index several repositories into a directory of their own, --db <dir>; --rebuild forgets it)`,
            ),
          );
        else if (event.event.type === 'repository-vectors-lost')
          // Its elements are out of the index until its own run: say how to bring them back.
          this.#warn(
            `the vectors of repository ${event.event.repository} (${event.event.elements} elements) were lost with the vectors file: ` +
              `they are out of the index until it is indexed again (oc-vector-index ${event.event.root} --repo ${event.event.repository})`,
          );
        break;
      default:
        break;
    }
  };

  finish(): void {
    this.#stopTicking();
    this.#bar?.done();
  }

  /**
   * The progress line, drawn as files finish and every second between (a file may wait minutes
   * for the model): with what the model is doing, and the time left from its measured pace.
   */
  #trackProgress(event: IndexEvent): void {
    this.#progress.onEvent(event);
    if (event.type === 'scan-done' || event.type === 'progress') this.#drawProgress();
    if (event.type === 'scan-done' && this.#progress.started && !this.#ticking) {
      this.#ticking = setInterval(() => this.#drawProgress(), PROGRESS_TICK_MS);
      // A run that ends without finish() (an error thrown past it) is not kept alive by the bar.
      this.#ticking.unref();
    }
    if (event.type === 'run-done' || event.type === 'run-aborted') this.#stopTicking();
  }

  #drawProgress(): void {
    if (!this.#progress.started) return;
    const { done, total, detail, etaMs } = this.#progress.line();
    this.#bar?.update(done, total, detail, etaMs);
  }

  #stopTicking(): void {
    clearInterval(this.#ticking);
    this.#ticking = undefined;
  }

  report(summary: IndexSummary): RunReport {
    // By path: the scan reports odd entries as their checks finish, in no fixed order.
    const skipped = [...this.skipped].sort(byPath);
    return { summary, skipped, failed: this.failed, fallbacks: this.fallbacks, excluded: this.excluded };
  }

  /**
   * Each file of a language whose grammar could not be loaded has a warning
   * that says so: one line per grammar, with what installs it.
   */
  #grammarWarning(message: string): void {
    const grammar = unavailableGrammarIn(message);
    if (!grammar || this.#unavailableGrammars.has(grammar.language)) return;
    this.#unavailableGrammars.add(grammar.language);
    const fix = grammar.package ? `. ${grammarFix(grammar.language, grammar.package)}` : '';
    this.#warn(`${message}${fix}`, { capped: false });
  }

  /** Something the user did not ask for but should know: not a problem. */
  #say(message: string): void {
    if (this.#quiet) return;
    this.#bar?.done();
    this.#stream.write(`${this.#style.dim('note:')} ${message}\n`);
  }

  #warn(message: string, { capped = true } = {}): void {
    if (this.#quiet) return;
    if (capped && ++this.#warnings > WARNINGS_SHOWN) return;
    this.#bar?.done();
    this.#stream.write(`${this.#style.warn('warning:')} ${message}\n`);
  }
}

/**
 * What makes a grammar load. An optional dependency (tree-sitter-swift) is
 * left out by npm where its own dependency's install script cannot download
 * from GitHub; without install scripts it installs from the npm registry
 * alone, with its prebuilt binaries.
 */
function grammarFix(language: string, grammarPackage: string): string {
  const optional = (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      optionalDependencies?: Record<string, string>;
    }
  ).optionalDependencies?.[grammarPackage];
  if (optional)
    return `To parse ${language} files: npm install ${grammarPackage}@${optional} --ignore-scripts in your project (with -g where ocvector is installed globally)`;
  return `To parse ${language} files: npm rebuild ${grammarPackage} in your project, or install ocvector again (it depends on ${grammarPackage})`;
}

/** Adds up the summaries of several runs into one index (several paths given). */
export function mergeSummaries(summaries: readonly IndexSummary[]): IndexSummary {
  const [first, ...rest] = summaries;
  if (!first) throw new RangeError('no run to summarise');
  const total: IndexSummary = structuredClone(first);
  for (const s of rest) {
    for (const key of Object.keys(total.files) as (keyof IndexSummary['files'])[]) total.files[key] += s.files[key];
    total.elements.added += s.elements.added;
    total.elements.removed += s.elements.removed;
    total.elements.kept += s.elements.kept;
    total.elements.total = s.elements.total;
    total.embeddings.computed += s.embeddings.computed;
    total.embeddings.cached += s.embeddings.cached;
    total.calls.embedding += s.calls.embedding;
    total.calls.model += s.calls.model;
    total.index = s.index;
    total.generation = s.generation;
    total.durationMs += s.durationMs;
  }
  return total;
}

export function renderRunReport(report: RunReport, style: Style): string {
  const { summary: s } = report;
  const f = s.files;
  const lines = [`${style.bold('indexed')} ${s.root} ${style.dim(`into ${s.indexDir}`)}`];
  const changes = [
    `${f.added} added`,
    `${f.changed} changed`,
    `${f.renamed} renamed`,
    `${f.deleted} deleted`,
    `${f.unchanged} unchanged`,
  ];
  lines.push(`  files      ${formatCount(f.scanned)} scanned: ${changes.join(', ')}`);
  if (report.skipped.length > 0) {
    const byReason = countBy(report.skipped.map((skip) => skip.reason));
    lines.push(`  skipped    ${report.skipped.length} (${formatReasonCounts(byReason)})`);
  }
  if (report.excluded > 0)
    lines.push(`  excluded   ${formatCount(report.excluded)} by ignore rules, default excludes and secret patterns`);
  if (report.failed.length > 0)
    lines.push(
      `  ${style.warn('failed')}     ${report.failed.length} (retried next run): ${report.failed
        .slice(0, 3)
        .map((x) => x.path)
        .join(', ')}${report.failed.length > 3 ? ', …' : ''}`,
    );
  lines.push(
    `  elements   ${formatCount(s.elements.total)} in the index: ${formatCount(s.elements.added)} new, ${formatCount(s.elements.removed)} removed, ${formatCount(s.elements.kept)} kept`,
  );
  lines.push(
    `  embedder   ${s.embedder}: ${formatCount(s.embeddings.computed)} embedded, ${formatCount(s.embeddings.cached)} from the cache, ${plural(s.calls.embedding, 'request')}`,
  );
  const fallbackTotal = Object.values(report.fallbacks).reduce((a, b) => a + b, 0);
  if (s.calls.model > 0 || fallbackTotal > 0) {
    const reasons = formatReasonCounts(report.fallbacks);
    lines.push(
      `  model      ${s.calls.model} analysis calls${fallbackTotal > 0 ? `; ${fallbackTotal} files fell back to syntax-tree analysis (${reasons})` : ''}`,
    );
  }
  lines.push(
    `  vectors    ${formatCount(s.index.vectors)} (${s.index.description}${s.index.written ? ', file written' : ''})`,
  );
  lines.push(`  time       ${formatDuration(s.durationMs)}`);
  return `${lines.join('\n')}\n`;
}

/**
 * "3 symlink, 1 special-file": the most frequent first, ties by name, so the line does not
 * depend on the order the file system lists a directory in.
 */
function formatReasonCounts(counts: Readonly<Record<string, number>>): string {
  return Object.entries(counts)
    .sort(([a, m], [b, n]) => n - m || a.localeCompare(b))
    .map(([reason, n]) => `${n} ${reason}`)
    .join(', ');
}

function countBy(items: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item] = (counts[item] ?? 0) + 1;
  return counts;
}
