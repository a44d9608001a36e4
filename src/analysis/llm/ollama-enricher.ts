/**
 * LLM analysis with the official ollama client: `/api/chat` with the result
 * schema as `format` and temperature 0. Each answer is validated with ajv
 * (one retry when it is not valid JSON or breaks the schema) and reconciled
 * with the syntax tree. Whatever goes wrong (a timeout, a refused
 * connection, a 500, nonsense), the AST result stands and the fallback is
 * reported as an event; no exception leaves `enrich`.
 */
import type { Ollama } from 'ollama';
import type { Enricher } from '../analyzer.js';
import type { AnalysisEvent, LlmFallbackReason } from '../events.js';
import type { CodeFile } from '../types.js';
import { analysisCacheKey, MemoryAnalysisCache, type AnalysisCache } from './cache.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { describeOllamaFailure, ollamaClient } from './client.js';
import { OLLAMA_ENRICHER_DEFAULTS, resolveOllamaHost } from './config.js';
import { planParts } from './parts.js';
import { reconcile } from './reconcile.js';
import { buildPrompt, checkAnswer, PROMPT_VERSION, RESULT_SCHEMA, type ModelAnswer } from './resources.js';

export interface OllamaEnricherOptions {
  /** Default http://127.0.0.1:11434. */
  host?: string;
  /** Default: qwen2.5-coder. */
  model?: string;
  /** Per request, reading the answer included. Default 120 s. */
  timeoutMs?: number;
  /** Bytes one answer may have. Default 64 MiB. */
  maxResponseBytes?: number;
  /** The model's context window in tokens (sent as num_ctx). Default 8,192. */
  contextTokens?: number;
  /** Failures in a row before no more calls are made in this run. Default 3. */
  failureThreshold?: number;
  cache?: AnalysisCache;
  signal?: AbortSignal;
  onEvent?: (event: AnalysisEvent) => void;
}

class Fallback extends Error {
  constructor(
    readonly reason: LlmFallbackReason,
    detail: string,
  ) {
    super(detail);
  }
}

export class OllamaEnricher implements Enricher {
  readonly model: string;
  readonly #client: Ollama;
  readonly #contextTokens: number;
  /** Tokens left for source lines once the prompt, schema and answer are accounted for. */
  readonly #codeBudgetTokens: number;
  readonly #cache: AnalysisCache;
  readonly #breaker: CircuitBreaker;
  readonly #signal: AbortSignal | undefined;
  readonly #emit: (event: AnalysisEvent) => void;
  /** Model calls made (not cache hits): what an unchanged re-run must keep at zero. */
  calls = 0;

  constructor(options: OllamaEnricherOptions = {}) {
    const defaults = OLLAMA_ENRICHER_DEFAULTS;
    this.model = options.model ?? defaults.model;
    this.#contextTokens = options.contextTokens ?? defaults.contextTokens;
    const fixedTokens = Math.ceil(buildPrompt('', '', [], undefined).length / 3.5);
    this.#codeBudgetTokens = Math.max(512, Math.floor((this.#contextTokens - fixedTokens) * 0.5));
    this.#cache = options.cache ?? new MemoryAnalysisCache();
    this.#breaker = new CircuitBreaker(options.failureThreshold ?? defaults.failureThreshold);
    this.#signal = options.signal;
    this.#emit = options.onEvent ?? (() => {});
    // A deadline per request; the run's own signal aborts everything.
    this.#client = ollamaClient(resolveOllamaHost(options.host), {
      timeoutMs: options.timeoutMs ?? defaults.timeoutMs,
      signal: options.signal,
      maxResponseBytes: options.maxResponseBytes,
    });
  }

  async enrich(file: CodeFile, text: string): Promise<CodeFile> {
    const path = file.path;
    try {
      const key = analysisCacheKey(this.model, PROMPT_VERSION, text);
      const cached = await this.#cache.get(key);
      const answers = cached ?? (await this.#ask(file, text));
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

  /** Model calls `enrich` would make for this file now: 0 when its answers are cached, else one per part. */
  async plannedCalls(file: CodeFile, text: string): Promise<number> {
    if (await this.#cache.get(analysisCacheKey(this.model, PROMPT_VERSION, text))) return 0;
    return planParts(file, text.split('\n'), this.#codeBudgetTokens).length;
  }

  async #ask(file: CodeFile, text: string): Promise<ModelAnswer[]> {
    const lines = text.split('\n');
    const parts = planParts(file, lines, this.#codeBudgetTokens);
    const answers: ModelAnswer[] = [];
    for (const part of parts) {
      const slice = lines.slice(part.firstLine - 1, part.lastLine);
      const prompt = buildPrompt(file.path, file.language, slice, parts.length > 1 ? part : undefined);
      answers.push(await this.#askWithRetry(prompt));
    }
    return answers;
  }

  async #askWithRetry(prompt: string): Promise<ModelAnswer> {
    let last: Fallback | undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      const content = await this.#chat(prompt);
      const checked = checkAnswer(content);
      if (checked.ok) {
        this.#breaker.succeeded();
        return checked.answer;
      }
      last = new Fallback(checked.reason, checked.detail);
    }
    this.#failed();
    throw last!;
  }

  async #chat(prompt: string): Promise<string> {
    if (this.#breaker.isOpen) {
      throw new Fallback('circuit-open', `no model calls after ${this.#breaker.failures} failures in a row`);
    }
    try {
      this.calls++;
      const response = await this.#client.chat({
        model: this.model,
        messages: [{ role: 'user', content: prompt }],
        format: RESULT_SCHEMA,
        stream: false,
        options: { temperature: 0, num_ctx: this.#contextTokens },
      });
      return response.message.content;
    } catch (error) {
      const fallback = classify(error, this.#signal);
      if (fallback.reason !== 'aborted') this.#failed();
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
}

function classify(error: unknown, signal: AbortSignal | undefined): Fallback {
  const failure = describeOllamaFailure(error, signal);
  switch (failure.kind) {
    case 'aborted':
      return new Fallback('aborted', failure.message);
    case 'timeout':
      return new Fallback('timeout', 'the model did not answer in time');
    case 'http':
      return new Fallback('server-error', `HTTP ${failure.status ?? '?'}: ${failure.message}`.trim());
    case 'invalid-response':
      return new Fallback('invalid-response', failure.message);
    case 'unreachable':
      return new Fallback('unreachable', `cannot reach the model server: ${failure.message}`);
  }
}
