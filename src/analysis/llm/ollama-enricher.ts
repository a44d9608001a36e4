/**
 * LLM analysis with the official ollama client: `/api/chat` with the call's
 * format (answer-format.ts) and temperature 0, the answer streamed. Parts, validation, retries, the
 * cache and the circuit breaker are ModelEnricher's: whatever goes wrong,
 * the AST result stands and the fallback is reported as an event.
 */
import type { Ollama } from 'ollama';
import {
  describeOllamaFailure,
  isModelMissing,
  missingModelMessage,
  ollamaClient,
} from '../../models/ollama-client.js';
import { OLLAMA_ENRICHER_DEFAULTS, resolveOllamaHost } from '../../models/config.js';
import type { ServerFailure } from '../../models/http.js';
import { ollamaHasModel } from '../../models/ollama-has-model.js';
import type { AnalysisBackend } from './backend.js';
import { type ChatReply, type ChatUsage, ModelEnricher, type ModelEnricherOptions } from './model-enricher.js';
import type { AnswerFormat } from './answer-format.js';

export interface OllamaEnricherOptions extends ModelEnricherOptions {
  /** Names this kind where options of several kinds may be given (`llm: { kind: 'ollama', … }`). */
  kind?: 'ollama';
  /** Default http://127.0.0.1:11434. */
  host?: string;
  /** Default: qwen2.5-coder. */
  model?: string;
  /** The model's context window in tokens (sent as num_ctx). Default 8,192. */
  contextTokens?: number;
}

/**
 * Ollama's analysis backend, the default one (backends.ts). It takes the
 * address and the deadline of the Ollama server given elsewhere (the
 * embedder's), never its model.
 */
export const ollamaAnalysisBackend: AnalysisBackend<OllamaEnricherOptions> = {
  name: 'ollama',
  create: (options) => new OllamaEnricher(options),
  serverSettings(settings) {
    const { host, timeoutMs } = settings as OllamaEnricherOptions;
    return { ...(host !== undefined ? { host } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
  },
  async unavailable(model, settings) {
    const wanted = model ?? OLLAMA_ENRICHER_DEFAULTS.model;
    const url = resolveOllamaHost((settings as OllamaEnricherOptions).host);
    return (await ollamaHasModel(url, wanted)) ? undefined : `no analysis model ${wanted} at ${url}`;
  },
};

export class OllamaEnricher extends ModelEnricher {
  readonly #client: Ollama;
  readonly #host: string;

  constructor(options: OllamaEnricherOptions = {}) {
    super(options.model ?? OLLAMA_ENRICHER_DEFAULTS.model, options);
    this.#host = resolveOllamaHost(options.host);
    // A deadline per request; the run's own signal aborts everything.
    // Streamed, with the deadline restarted by each part of the answer: a small model on a CPU
    // writes for minutes and is never cut while it writes; a server that falls silent is.
    this.#client = ollamaClient(this.#host, {
      idle: true,
      timeoutMs: options.timeoutMs ?? OLLAMA_ENRICHER_DEFAULTS.timeoutMs,
      signal: options.signal,
      maxResponseBytes: options.maxResponseBytes,
    });
  }

  protected async chat(prompt: string, format: AnswerFormat): Promise<ChatReply> {
    const parts = await this.#client.chat({
      model: this.model,
      messages: [{ role: 'user', content: prompt }],
      format,
      stream: true,
      options: { temperature: 0, num_ctx: this.contextTokens },
    });
    let content = '';
    const usage: ChatUsage = {};
    for await (const part of parts) {
      content += part.message?.content ?? '';
      if (part.done) Object.assign(usage, { promptTokens: part.prompt_eval_count, outputTokens: part.eval_count });
    }
    return { content, usage };
  }

  /** A model the server lacks is said once, with what to do, and ends the model's part of the run. */
  protected describeFailure(error: unknown, signal: AbortSignal | undefined): ServerFailure {
    const failure = describeOllamaFailure(error, signal);
    if (!isModelMissing(failure)) return failure;
    return {
      ...failure,
      final: true,
      message: missingModelMessage(this.#host, this.model),
    };
  }
}
