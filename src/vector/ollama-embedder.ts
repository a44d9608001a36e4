/**
 * Embeddings from an Ollama server with the official client: `/api/embed`
 * with batched `input` arrays. The dimension is detected from the model on
 * `init` and recorded by the store. Inputs longer than the model's context
 * are cut (here, and by the server's `truncate`) rather than failing.
 * Batching, retries, the circuit breaker and the checks of each answer are
 * RemoteEmbedder's.
 */
import { describeOllamaFailure, isModelMissing, missingModelMessage, ollamaClient } from '../models/ollama-client.js';
import { resolveOllamaHost } from '../models/config.js';
import { isNoListener } from '../models/http.js';
import type { EmbedderBackend } from './backend.js';
import { EmbedderError } from './embedder.js';
import {
  BUILTIN_INSTEAD,
  commonEmbedderError,
  REMOTE_EMBEDDER_DEFAULTS,
  RemoteEmbedder,
  type RemoteEmbedderOptions,
} from './remote-embedder.js';

/** What an OllamaEmbedder does when its options leave something out. */
export const OLLAMA_EMBEDDER_DEFAULTS = { model: 'nomic-embed-text', ...REMOTE_EMBEDDER_DEFAULTS } as const;

export const DEFAULT_EMBEDDING_MODEL = OLLAMA_EMBEDDER_DEFAULTS.model;

export interface OllamaEmbedderOptions extends RemoteEmbedderOptions {
  /** Names this kind where options of several kinds may be given (`embedder: { kind: 'ollama', … }`). */
  kind?: 'ollama';
  /** Default http://127.0.0.1:11434. */
  host?: string;
  /** Default nomic-embed-text. */
  model?: string;
  /** The model's context in tokens (sent as num_ctx); inputs are cut to fit. Default 2,048. */
  contextTokens?: number;
}

/**
 * Ollama's backend: ids `ollama:<model>`. The server is the one the options
 * name, else the local default (the user's own machine), never one an
 * index recorded: the index keeps the URL for --status only.
 */
export const ollamaBackend = {
  name: 'ollama',
  create: (options) => new OllamaEmbedder(options),
  fromId: (model, options) => new OllamaEmbedder({ ...options, model }),
  optionsAtTopLevel: true,
} satisfies EmbedderBackend<OllamaEmbedderOptions>;

export class OllamaEmbedder extends RemoteEmbedder {
  readonly #host: string;

  constructor(options: OllamaEmbedderOptions = {}) {
    super(options.model ?? OLLAMA_EMBEDDER_DEFAULTS.model, options);
    this.#host = resolveOllamaHost(options.host);
  }

  get id(): string {
    return `ollama:${this.model}`;
  }

  /** The server's URL, as resolved from the options. */
  get host(): string {
    return this.#host;
  }

  protected async request(input: string[], signal: AbortSignal | undefined): Promise<unknown> {
    const response = await ollamaClient(this.#host, {
      timeoutMs: this.timeoutMs,
      signal,
      maxResponseBytes: this.maxResponseBytes,
    }).embed({ model: this.model, input, truncate: true, options: { num_ctx: this.contextTokens } });
    return response.embeddings;
  }

  /**
   * The failure as a message that says which it was (no server at the URL, or
   * a server without the model), names the URL, and says what to do.
   */
  protected async classify(error: unknown, signal: AbortSignal | undefined): Promise<EmbedderError> {
    const failure = describeOllamaFailure(error, signal);
    const host = this.#host;
    if (isModelMissing(failure))
      return new EmbedderError(`${missingModelMessage(host, this.model)}, ${BUILTIN_INSTEAD}`, 'MODEL_MISSING');
    // Refused or no such host: nothing listens there. Anything else (a hang-up): something does, and failed.
    if (isNoListener(failure))
      return new EmbedderError(
        `no Ollama server answers at ${host} (${failure.message}): start it with \`ollama serve\`, or give the right address (--ollama-host, OLLAMA_HOST), ${BUILTIN_INSTEAD}`,
        'UNREACHABLE',
      );
    return commonEmbedderError(failure, this.model, host, 'the Ollama server');
  }
}
