/**
 * What an analysis model did over a run, tallied from the indexer's analysis events: how many
 * files it was asked about, how many answers were schema-valid on the first try, what fell
 * back to the syntax tree and why, how much of its answers matched the tree, and how fast it
 * was (seconds per file, tokens written per second of call time).
 */
import type { AnalysisEvent } from '../../src/analysis/events.js';

interface FileTally {
  calls: number;
  firstTryValid: boolean;
  seconds: number;
  parts: number;
}

export interface ModelSummary {
  files: number;
  filesValidFirstTry: number;
  filesEnriched: number;
  /** Files whose every element has a doc comment (and the file a summary): no call made. */
  filesNothingToAsk: number;
  filesInParts: number;
  fallbacks: Record<string, number>;
  calls: number;
  answers: Record<string, number>;
  elementsMatched: number;
  elementsDropped: number;
  secondsPerFile: { median: number; mean: number; max: number };
  promptTokens: number;
  outputTokens: number;
  outputTokensPerSecond: number;
}

export class ModelTally {
  readonly #files = new Map<string, FileTally>();
  readonly #fallbacks: Record<string, number> = {};
  readonly #answers: Record<string, number> = {};
  #enriched = 0;
  #nothingToAsk = 0;
  #matched = 0;
  #dropped = 0;
  #promptTokens = 0;
  #outputTokens = 0;

  add(event: AnalysisEvent): void {
    if (event.type === 'llm-answer') {
      const file = this.#files.get(event.path) ?? { calls: 0, firstTryValid: true, seconds: 0, parts: 0 };
      file.calls++;
      file.seconds += event.seconds;
      file.parts = Math.max(file.parts, event.part + 1);
      if (event.attempt === 0 && event.outcome !== 'valid') file.firstTryValid = false;
      this.#files.set(event.path, file);
      this.#answers[event.outcome] = (this.#answers[event.outcome] ?? 0) + 1;
      this.#promptTokens += event.promptTokens ?? 0;
      this.#outputTokens += event.outputTokens ?? 0;
    } else if (event.type === 'llm-fallback') {
      this.#fallbacks[event.reason] = (this.#fallbacks[event.reason] ?? 0) + 1;
    } else if (event.type === 'llm-enriched' && !event.cached && event.parts === 0) {
      this.#nothingToAsk++;
    } else if (event.type === 'llm-enriched' && !event.cached) {
      this.#enriched++;
      this.#matched += event.matched;
      this.#dropped += event.dropped;
    }
  }

  summary(): ModelSummary {
    const files = [...this.#files.values()];
    const seconds = files.map((file) => file.seconds).sort((a, b) => a - b);
    const total = seconds.reduce((sum, s) => sum + s, 0);
    return {
      files: files.length,
      filesValidFirstTry: files.filter((file) => file.firstTryValid).length,
      filesEnriched: this.#enriched,
      filesNothingToAsk: this.#nothingToAsk,
      filesInParts: files.filter((file) => file.parts > 1).length,
      fallbacks: { ...this.#fallbacks },
      calls: files.reduce((sum, file) => sum + file.calls, 0),
      answers: { ...this.#answers },
      elementsMatched: this.#matched,
      elementsDropped: this.#dropped,
      secondsPerFile: {
        median: seconds[Math.floor(seconds.length / 2)] ?? 0,
        mean: files.length ? total / files.length : 0,
        max: seconds.at(-1) ?? 0,
      },
      promptTokens: this.#promptTokens,
      outputTokens: this.#outputTokens,
      outputTokensPerSecond: total ? this.#outputTokens / total : 0,
    };
  }

  /** A few lines for a terminal. */
  report(model: string): string {
    const s = this.summary();
    const share = (n: number) => (s.files ? `${((100 * n) / s.files).toFixed(1)}%` : '–');
    const list = (counts: Record<string, number>) =>
      Object.entries(counts)
        .map(([reason, n]) => `${reason} ${n}`)
        .join(', ') || 'none';
    return [
      `Analysis model ${model}: ${s.files} files asked, ${s.calls} calls (answers: ${list(s.answers)}).`,
      `  schema-valid on the first try: ${s.filesValidFirstTry} files (${share(s.filesValidFirstTry)}); enriched: ${s.filesEnriched} (${share(s.filesEnriched)}); in parts: ${s.filesInParts}; nothing to ask (all documented): ${s.filesNothingToAsk}.`,
      `  fallbacks to the syntax tree: ${list(s.fallbacks)}.`,
      `  elements in the answers: ${s.elementsMatched} matched the tree, ${s.elementsDropped} dropped.`,
      `  seconds per file: median ${s.secondsPerFile.median.toFixed(1)}, mean ${s.secondsPerFile.mean.toFixed(1)}, max ${s.secondsPerFile.max.toFixed(1)}; tokens read ${s.promptTokens}, written ${s.outputTokens} (${s.outputTokensPerSecond.toFixed(1)} a second of call time).`,
    ].join('\n');
  }
}
