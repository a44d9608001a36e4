/**
 * LLM analysis with the official ollama client: `/api/chat` with the result
 * schema as `format` and temperature 0. Parts, validation, retries, the
 * cache and the circuit breaker are ModelEnricher's: whatever goes wrong,
 * the AST result stands and the fallback is reported as an event.
 */
import type { Ollama } from 'ollama';
import { describeOllamaFailure, ollamaClient } from '../../models/ollama-client.js';
import { OLLAMA_ENRICHER_DEFAULTS, resolveOllamaHost } from '../../models/config.js';
import type { ServerFailure } from '../../models/http.js';
import { type ChatReply, ModelEnricher, type ModelEnricherOptions } from './model-enricher.js';
import { RESULT_SCHEMA } from './resources.js';

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

export class OllamaEnricher extends ModelEnricher {
  readonly #client: Ollama;

  constructor(options: OllamaEnricherOptions = {}) {
    super(options.model ?? OLLAMA_ENRICHER_DEFAULTS.model, options);
    // A deadline per request; the run's own signal aborts everything.
    this.#client = ollamaClient(resolveOllamaHost(options.host), {
      timeoutMs: options.timeoutMs ?? OLLAMA_ENRICHER_DEFAULTS.timeoutMs,
      signal: options.signal,
      maxResponseBytes: options.maxResponseBytes,
    });
  }

  protected async chat(prompt: string): Promise<ChatReply> {
    const response = await this.#client.chat({
      model: this.model,
      messages: [{ role: 'user', content: prompt }],
      format: RESULT_SCHEMA,
      stream: false,
      options: { temperature: 0, num_ctx: this.contextTokens },
    });
    return { content: response.message.content };
  }

  protected describeFailure(error: unknown, signal: AbortSignal | undefined): ServerFailure {
    return describeOllamaFailure(error, signal);
  }
}
