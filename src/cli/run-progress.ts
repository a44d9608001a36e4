/**
 * What a run's progress line says, from the run's events: files done of those to read and,
 * where an analysis model is asked, its calls answered of those planned, the time a call takes
 * as measured in this run, and the time left from that. A dry run can only assume how fast a
 * model answers (DRY_RUN_ASSUMPTIONS); a small model on a CPU may take minutes a call, so the
 * run's own estimate comes from the calls it has seen answered.
 */
import type { IndexEvent } from '../indexing/events.js';
import { formatDuration, plural } from './terminal.js';

export interface ProgressLine {
  done: number;
  total: number;
  /** What the model is doing, or empty when no model is asked. */
  detail: string;
  /**
   * Time left from the model's measured pace; null while the model has not answered (the files'
   * rate says nothing then); absent where no model is asked and the files' rate is the guess.
   */
  etaMs?: number | null;
}

export class RunProgress {
  readonly #now: () => number;
  #files = { done: 0, total: 0 };
  /** Calls planned for the files the model is asked about so far, and those answered (or given up on). */
  #planned = 0;
  #answered = 0;
  /** Files being asked about, and their calls not answered yet. */
  readonly #open = new Map<string, number>();
  /** Files whose calls are known: done, or seen by the model's side of the run. */
  readonly #known = new Set<string>();
  #firstAskedAt: number | undefined;
  #lastAnswerAt: number | undefined;
  /** The model failed too often: no more calls in this run, so no estimate from them. */
  #modelStopped = false;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** Whether there are files to show progress over. */
  get started(): boolean {
    return this.#files.total > 0;
  }

  onEvent(event: IndexEvent): void {
    switch (event.type) {
      case 'run-start':
        this.#reset();
        break;
      case 'scan-done':
        this.#files = { done: 0, total: event.candidates };
        break;
      case 'progress':
        this.#files = { done: event.done, total: event.total };
        this.#known.add(event.path);
        break;
      case 'analysis':
        this.#onAnalysis(event.event);
        break;
      default:
        break;
    }
  }

  line(): ProgressLine {
    const { done, total } = this.#files;
    const model = this.#modelLine();
    return { done, total, ...model };
  }

  #onAnalysis(event: Extract<IndexEvent, { type: 'analysis' }>['event']): void {
    const now = this.#now();
    if ('path' in event) this.#known.add(event.path);
    switch (event.type) {
      case 'llm-asking':
        this.#firstAskedAt ??= now;
        this.#planned += event.calls;
        this.#open.set(event.path, event.calls);
        break;
      case 'llm-answer': {
        // A question is done when its answer is good, or its second try is not (no third).
        if (event.outcome !== 'valid' && event.attempt === 0) break;
        this.#answered++;
        this.#lastAnswerAt = now;
        const left = this.#open.get(event.path);
        if (left !== undefined) this.#open.set(event.path, Math.max(0, left - 1));
        break;
      }
      case 'llm-enriched':
      case 'llm-fallback': {
        // Questions of a file given up on are not asked: they leave the plan.
        this.#planned -= this.#open.get(event.path) ?? 0;
        this.#open.delete(event.path);
        break;
      }
      case 'llm-circuit-open':
        this.#modelStopped = true;
        break;
      default:
        break;
    }
  }

  #modelLine(): { detail: string; etaMs?: number | null } {
    if (this.#firstAskedAt === undefined || this.#modelStopped) return { detail: '' };
    const now = this.#now();
    const planned = this.#planned + this.#unplannedCalls();
    const calls = `model ${this.#answered}/${plural(Math.round(planned), 'call')}`;
    if (this.#answered === 0 || this.#lastAnswerAt === undefined)
      return {
        detail: `${calls}, waiting for its first answer (${formatDuration(now - this.#firstAskedAt)})`,
        etaMs: null,
      };
    const perCall = (this.#lastAnswerAt - this.#firstAskedAt) / this.#answered;
    const left = Math.max(0, planned - this.#answered);
    return { detail: `${calls}, ${formatDuration(perCall)} a call`, etaMs: left * perCall };
  }

  /**
   * Calls for the files not yet analysed: as many a file as the files known so far needed.
   * A run reads dozens of files ahead of the model, so on a small repository the plan is whole
   * before the first answer comes.
   */
  #unplannedCalls(): number {
    const known = this.#known.size;
    const unknown = Math.max(0, this.#files.total - known);
    return known > 0 ? (unknown * this.#planned) / known : 0;
  }

  #reset(): void {
    this.#files = { done: 0, total: 0 };
    this.#planned = 0;
    this.#answered = 0;
    this.#open.clear();
    this.#known.clear();
    this.#firstAskedAt = undefined;
    this.#lastAnswerAt = undefined;
    this.#modelStopped = false;
  }
}
