/**
 * What the enrichers share, whatever API their server speaks: files too
 * large for the context go in parts, each answer is validated with ajv (one
 * retry when it is not valid JSON, breaks the schema, or is a refusal) and
 * reconciled with the syntax tree, answers are cached, and a circuit
 * breaker stops calling a failing server. Whatever goes wrong (a timeout, a
 * refused connection, a 500, nonsense), the AST result stands and the
 * fallback is reported as an event; no exception leaves `enrich`. A
 * subclass says how to ask its server and how to read its failures.
 */
import type { Enricher } from '../analyzer.js';
import type { AnalysisEvent, LlmFallbackReason } from '../events.js';
import type { CodeElement, CodeFile } from '../types.js';
import { analysisCacheKey, analysisPartKey, MemoryAnalysisCache, type AnalysisCache } from './cache.js';
import { CallSlots } from '../../models/call-slots.js';
import { CircuitBreaker } from '../../models/circuit-breaker.js';
import { MODEL_ENRICHER_DEFAULTS } from '../../models/config.js';
import type { ServerFailure } from '../../models/http.js';
import { planParts } from './parts.js';
import { reconcile } from './reconcile.js';
import {
  buildPrompt,
  cachedAnswers,
  checkAnswer,
  PROMPT_VERSION,
  type Checked,
  type ModelAnswer,
  type PromptPart,
} from './resources.js';
import { answerFormatFor, MAX_ANSWER_ELEMENTS, type AnswerFormat } from './answer-format.js';
import { CODE_ELEMENT_TYPES } from '../element.js';

/**
 * The kinds a model is asked to describe: code, not the text windows of a file, nor a type's
 * fields and properties (a small model spends as long on a private field as on a method, and a
 * member's description weighs little in a search: FRAGMENT_TYPES).
 */
const DESCRIBED_TYPES: ReadonlySet<string> = new Set(
  CODE_ELEMENT_TYPES.filter((type) => type !== 'field' && type !== 'property'),
);

export interface ModelEnricherOptions {
  /** Per request, reading the answer included. Default 120 s. */
  timeoutMs?: number;
  /** Bytes one answer may have. Default 64 MiB. */
  maxResponseBytes?: number;
  /** The model's context window in tokens: files larger than it go in parts. Default 8,192. */
  contextTokens?: number;
  /** Failures in a row before no more calls are made in this run. Default 3. */
  failureThreshold?: number;
  /**
   * Calls sent at a time; the others wait their turn, and a call's deadline starts when it is
   * sent. Default 1 (a local server answers one at a time); a server with parallel slots takes more.
   */
  parallelCalls?: number;
  cache?: AnalysisCache;
  signal?: AbortSignal;
  onEvent?: (event: AnalysisEvent) => void;
}

/** Tokens a server counted for one call, where it says. */
export interface ChatUsage {
  promptTokens?: number | undefined;
  outputTokens?: number | undefined;
}

/** A model's reply: the content it wrote, or why it would not answer. */
export type ChatReply = ({ content: string } | { refusal: string }) & { usage?: ChatUsage };

class Fallback extends Error {
  constructor(
    readonly reason: LlmFallbackReason,
    detail: string,
  ) {
    super(detail);
  }
}

export abstract class ModelEnricher implements Enricher {
  readonly model: string;
  protected readonly contextTokens: number;
  /** The model as the cache knows it: answers of another server's model of the same name are not reused. */
  readonly #cacheModel: string;
  /** Tokens left for source lines once the prompt, schema and answer are accounted for. */
  readonly #codeBudgetTokens: number;
  readonly #cache: AnalysisCache;
  readonly #breaker: CircuitBreaker;
  readonly #slots: CallSlots;
  readonly #signal: AbortSignal | undefined;
  readonly #emit: (event: AnalysisEvent) => void;
  /** Model calls made (not cache hits): what an unchanged re-run must keep at zero. */
  calls = 0;

  constructor(model: string, options: ModelEnricherOptions, cacheModel = model) {
    this.model = model;
    this.#cacheModel = cacheModel;
    this.contextTokens = options.contextTokens ?? MODEL_ENRICHER_DEFAULTS.contextTokens;
    const fixedTokens = Math.ceil(buildPrompt('', '', [], undefined).length / 3.5);
    this.#codeBudgetTokens = Math.max(512, Math.floor((this.contextTokens - fixedTokens) * 0.5));
    this.#cache = options.cache ?? new MemoryAnalysisCache();
    this.#breaker = new CircuitBreaker(options.failureThreshold ?? MODEL_ENRICHER_DEFAULTS.failureThreshold);
    this.#slots = new CallSlots(options.parallelCalls ?? MODEL_ENRICHER_DEFAULTS.parallelCalls);
    this.#signal = options.signal;
    this.#emit = options.onEvent ?? (() => {});
  }

  /**
   * Asks the model once, with the run's signal and a deadline; throws what the request threw.
   * `format` is the schema this answer is to be written under (answer-format.ts), for a server
   * that constrains its output to one.
   */
  protected abstract chat(prompt: string, format: AnswerFormat): Promise<ChatReply>;

  /** What a thrown request failure was. */
  protected abstract describeFailure(error: unknown, signal: AbortSignal | undefined): ServerFailure;

  /** Parses and validates the content of a reply (a server may need to adapt it first). */
  protected checkContent(content: string): Checked {
    return checkAnswer(content);
  }

  async enrich(file: CodeFile, text: string): Promise<CodeFile> {
    const path = file.path;
    try {
      const key = analysisCacheKey(this.#cacheModel, PROMPT_VERSION, text);
      const cached = cachedAnswers(await this.#cache.get(key));
      const answers = cached ?? (await this.#ask(file, text, key));
      const result = reconcile(file, answers);
      const answered = answers.reduce((n, a) => n + a.elements.length, 0);
      if (answered > 0 && (result.matched === 0 || result.dropped > result.matched)) {
        throw new Fallback(
          'mismatch',
          `${result.dropped} of ${answered} elements in the answer match nothing in the syntax tree`,
        );
      }
      if (!cached) await this.#cache.set(key, answers);
      this.#emit({
        type: 'llm-enriched',
        path,
        matched: result.matched,
        dropped: result.dropped,
        parts: answers.length,
        cached: Boolean(cached),
      });
      return result.file;
    } catch (error) {
      const fallback = error instanceof Fallback ? error : new Fallback('server-error', (error as Error).message);
      this.#emit({ type: 'llm-fallback', path, reason: fallback.reason, detail: fallback.message });
      return file;
    }
  }

  /** Model calls `enrich` would make for this file now: one per part asked about whose answer is not cached. */
  async plannedCalls(file: CodeFile, text: string): Promise<number> {
    const key = analysisCacheKey(this.#cacheModel, PROMPT_VERSION, text);
    if (cachedAnswers(await this.#cache.get(key))) return 0;
    const questions = await this.#withCachedParts(this.#questions(file, text.split('\n')), key);
    return questions.filter(({ answer }) => !answer).length;
  }

  /**
   * What to ask, part by part: the elements with no doc comment of their own (an author's comment
   * wins over the model's words, so asking about those is time lost), and the file's summary
   * where it has none. A part with nothing to ask about makes no call.
   */
  #questions(file: CodeFile, lines: string[]): { part: PromptPart; elements: CodeElement[] }[] {
    const asked = file.elements.filter((e) => !e.description && DESCRIBED_TYPES.has(e.type));
    const parts = planParts(file, lines, this.#codeBudgetTokens, { counted: asked, maxElements: MAX_ANSWER_ELEMENTS });
    return parts
      .map((part) => ({
        part,
        elements: asked.filter((e) => e.startLine >= part.firstLine && e.startLine <= part.lastLine),
      }))
      .filter(({ part, elements }) => elements.length > 0 || (part.index === 0 && !file.summary));
  }

  /**
   * Each question with its part's answer where the cache holds one. The answers of a file in
   * several parts are cached part by part as they come (a part can take minutes on a CPU): a run
   * stopped between parts asks only about the others next time. A file in one part is cached
   * whole as soon as it is answered.
   */
  async #withCachedParts(
    questions: { part: PromptPart; elements: CodeElement[] }[],
    key: string,
  ): Promise<{ part: PromptPart; elements: CodeElement[]; answer: ModelAnswer | undefined }[]> {
    if (questions.length < 2) return questions.map((question) => ({ ...question, answer: undefined }));
    return Promise.all(
      questions.map(async (question) => {
        const cached = cachedAnswers(await this.#cache.get(analysisPartKey(key, question.part)));
        return { ...question, answer: cached?.length === 1 ? cached[0] : undefined };
      }),
    );
  }

  async #ask(file: CodeFile, text: string, key: string): Promise<ModelAnswer[]> {
    const lines = text.split('\n');
    const answers: ModelAnswer[] = [];
    const questions = await this.#withCachedParts(this.#questions(file, lines), key);
    const calls = questions.filter(({ answer }) => !answer).length;
    if (calls > 0) this.#emit({ type: 'llm-asking', path: file.path, calls });
    for (const { part, elements, answer } of questions) {
      if (answer) {
        answers.push(answer);
        continue;
      }
      const slice = lines.slice(part.firstLine - 1, part.lastLine);
      const prompt = buildPrompt(file.path, file.language, slice, part.count > 1 ? part : undefined, elements);
      const format = answerFormatFor(file.path, file.language, elements);
      const fresh = await this.#askWithRetry(prompt, format, file.path, part.index);
      if (questions.length > 1) await this.#cache.set(analysisPartKey(key, part), [fresh]);
      answers.push(fresh);
    }
    return answers;
  }

  async #askWithRetry(prompt: string, format: AnswerFormat, path: string, part: number): Promise<ModelAnswer> {
    let last: Fallback | undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      const { reply, seconds } = await this.#chat(prompt, format);
      // A refusal is a bad answer like any other: retried once, then the syntax tree stands.
      const checked: Checked =
        'refusal' in reply
          ? { ok: false, reason: 'invalid-json', detail: `the model refused to answer: ${reply.refusal}` }
          : this.checkContent(reply.content);
      this.#emit({
        type: 'llm-answer',
        path,
        part,
        attempt,
        outcome: checked.ok ? 'valid' : checked.reason,
        seconds,
        ...countedTokens(reply.usage),
      });
      if (checked.ok) {
        this.#breaker.succeeded();
        return checked.answer;
      }
      last = new Fallback(checked.reason, checked.detail);
    }
    this.#failed();
    throw last!;
  }

  /**
   * One call when a slot is free (CallSlots): the circuit is checked then, as it may have opened
   * meanwhile. Its seconds are the call's own, not the wait for the slot.
   */
  #chat(prompt: string, format: AnswerFormat): Promise<{ reply: ChatReply; seconds: number }> {
    return this.#slots.run(async () => {
      const started = performance.now();
      const reply = await this.#chatNow(prompt, format);
      return { reply, seconds: (performance.now() - started) / 1000 };
    });
  }

  async #chatNow(prompt: string, format: AnswerFormat): Promise<ChatReply> {
    if (this.#breaker.isOpen) {
      throw new Fallback('circuit-open', `no model calls after ${this.#breaker.failures} failures in a row`);
    }
    try {
      this.calls++;
      return await this.chat(prompt, format);
    } catch (error) {
      const failure = this.describeFailure(error, this.#signal);
      const fallback = asFallback(failure);
      if (failure.final) this.#stopAsking(failure.message);
      else if (fallback.reason !== 'aborted') this.#failed();
      throw fallback;
    }
  }

  #failed(): void {
    if (this.#breaker.failed()) {
      this.#emit({
        type: 'llm-circuit-open',
        failures: this.#breaker.failures,
        detail: 'the model server failed repeatedly; the rest of this run uses the syntax tree alone',
      });
    }
  }

  /** A failure no later call can mend (the model is missing): no more calls, said once. */
  #stopAsking(detail: string): void {
    if (this.#breaker.trip()) this.#emit({ type: 'llm-circuit-open', failures: this.#breaker.failures, detail });
  }
}

/** The counts a server gave, without the ones it left out. */
function countedTokens(usage: ChatUsage | undefined): { promptTokens?: number; outputTokens?: number } {
  return {
    ...(usage?.promptTokens === undefined ? {} : { promptTokens: usage.promptTokens }),
    ...(usage?.outputTokens === undefined ? {} : { outputTokens: usage.outputTokens }),
  };
}

function asFallback(failure: ServerFailure): Fallback {
  switch (failure.kind) {
    case 'aborted':
      return new Fallback('aborted', failure.message);
    case 'timeout':
      return new Fallback('timeout', 'the model did not answer in time');
    case 'http':
      if (failure.final) return new Fallback('model-missing', failure.message);
      return new Fallback('server-error', `HTTP ${failure.status ?? '?'}: ${failure.message}`.trim());
    case 'invalid-response':
      return new Fallback('invalid-response', failure.message);
    case 'unreachable':
      return new Fallback('unreachable', `cannot reach the model server: ${failure.message}`);
  }
}
