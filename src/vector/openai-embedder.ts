/**
 * Embeddings from an OpenAI-compatible server (llama.cpp's server, LM
 * Studio, vLLM, Ollama's /v1, a hosted API): `POST {baseUrl}/embeddings`
 * with `{model, input: [...]}`, vectors read from `data[i].embedding` in
 * the order of `data[i].index`. Batching, retries, the circuit breaker and
 * the checks of each answer are RemoteEmbedder's; failures say which it was
 * in this API's terms (never "ollama pull").
 */
import { isNoListener } from '../models/http.js';
import {
  authRemedy,
  describeOpenAIFailure,
  isAuthFailure,
  isUnknownModel,
  OpenAIClient,
  type OpenAIServerOptions,
  unknownModelRemedy,
} from '../models/openai-client.js';
import type { EmbedderBackend } from './backend.js';
import { EmbedderError } from './embedder.js';
import { BUILTIN_INSTEAD, commonEmbedderError, RemoteEmbedder, type RemoteEmbedderOptions } from './remote-embedder.js';

export interface OpenAIEmbedderOptions extends RemoteEmbedderOptions, OpenAIServerOptions {
  /** Names this kind where options of several kinds may be given (`embedder: { kind: 'openai', … }`). */
  kind?: 'openai';
  /** The server's base URL, e.g. http://127.0.0.1:8080/v1. Required: nothing is sent anywhere unless asked. */
  baseUrl?: string;
  /** The embedding model, as the server names it. Required. */
  model?: string;
}

/**
 * The backend of OpenAI-compatible servers: ids `openai:<model>`. Made only
 * when named: nothing probes for a server. The base URL is only ever the
 * one the user gave: an index records the one it was built with (for
 * --status), but an index is data that may come with a clone, and the
 * server it names would be sent the queries, the code and the API key.
 */
export const openaiBackend = {
  name: 'openai',
  create: (options) => new OpenAIEmbedder(options),
  fromId: (model, options) => {
    if (!options.baseUrl?.trim()) throw new EmbedderError(NO_SERVER_NAMED, 'NOT_CONFIGURED');
    return new OpenAIEmbedder({ ...options, model });
  },
  modelName: { required: 'the embedding model the server serves' },
  optionsAtTopLevel: true,
} satisfies EmbedderBackend<OpenAIEmbedderOptions>;

/**
 * Why an index of an OpenAI-compatible server's model is not embedded for
 * without a base URL, and what to do. It names neither the model nor the
 * server the index records: both are the index's text, and a message an
 * agent reads is no place to pass on a URL it was handed.
 */
const NO_SERVER_NAMED =
  "the index's model is on an OpenAI-compatible server, and only a server you name is sent anything, never one an index records: " +
  'give its base URL with --openai-base-url (or OCVECTOR_OPENAI_BASE_URL; the library: embedderOptions.openai.baseUrl), or rebuild the index with --rebuild --embedder builtin';

/** How long the list of models may take, when a missing model is reported. */
const MODEL_LIST_TIMEOUT_MS = 5_000;

export class OpenAIEmbedder extends RemoteEmbedder {
  readonly #client: OpenAIClient;

  /** Throws EmbedderError NOT_CONFIGURED without a model or a usable base URL. */
  constructor(options: OpenAIEmbedderOptions) {
    const model = options.model?.trim();
    if (!model)
      throw new EmbedderError(
        'an OpenAI-compatible embedder needs the model name the server serves (model; the CLIs: --embedding-model)',
        'NOT_CONFIGURED',
      );
    super(model, options);
    try {
      // The caller's signal is given per request.
      this.#client = new OpenAIClient(options.baseUrl ?? '', {
        timeoutMs: this.timeoutMs,
        maxResponseBytes: this.maxResponseBytes,
        apiKey: options.apiKey,
      });
    } catch (error) {
      throw new EmbedderError((error as Error).message, 'NOT_CONFIGURED');
    }
  }

  get id(): string {
    return `openai:${this.model}`;
  }

  /** The base URL, as the user gave it (canonical): the index records it for --status, never to reach it again. */
  get host(): string {
    return this.#client.baseUrl;
  }

  protected async request(input: string[], signal: AbortSignal | undefined): Promise<unknown> {
    return inIndexOrder(await this.#client.post('embeddings', { model: this.model, input }, signal));
  }

  protected async classify(error: unknown, signal: AbortSignal | undefined): Promise<EmbedderError> {
    const failure = describeOpenAIFailure(error, signal);
    const url = this.host;
    if (isAuthFailure(failure))
      return new EmbedderError(
        `the server at ${url} refused the request (HTTP ${failure.status}: ${failure.message}): ${authRemedy(this.#client.hasApiKey)}`,
        'UNAUTHORIZED',
      );
    if (isUnknownModel(failure))
      return new EmbedderError(
        `the server at ${url} has no embedding model ${this.model} (HTTP ${failure.status}: ${failure.message}): ` +
          `${unknownModelRemedy(await this.#servedModels(signal))}, ${BUILTIN_INSTEAD}`,
        'MODEL_MISSING',
      );
    if (isNoListener(failure))
      return new EmbedderError(
        `no server answers at ${url} (${failure.message}): start the OpenAI-compatible server, or give its address (--openai-base-url), ${BUILTIN_INSTEAD}`,
        'UNREACHABLE',
      );
    return commonEmbedderError(failure, this.model, url, 'the server');
  }

  /** What the server says it serves, for the message about a missing model; where it will not say, how to ask. */
  async #servedModels(signal: AbortSignal | undefined): Promise<string> {
    const listing = `GET ${this.host}/models`;
    try {
      const models = await this.#client.models({ signal, timeoutMs: MODEL_LIST_TIMEOUT_MS });
      return models.length > 0 ? `it lists ${models.slice(0, 10).join(', ')}` : `${listing} lists none`;
    } catch {
      return `${listing} lists them`;
    }
  }
}

/**
 * The embeddings of an answer in input order: `data` sorted by `index`
 * (servers may answer out of order). Indexes that are not each of 0..n-1
 * once are an unusable answer; an answer without `data` is left for the
 * caller's check to report.
 */
function inIndexOrder(answer: unknown): unknown {
  const data = (answer as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return undefined;
  const ordered: unknown[] = new Array(data.length);
  const seen = new Set<number>();
  data.forEach((item: { index?: unknown; embedding?: unknown } | null, position) => {
    const index = item?.index ?? position;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= data.length || seen.has(index))
      throw new EmbedderError(
        `the server answered embedding indexes that are not 0 to ${data.length - 1} once each`,
        'INVALID_RESPONSE',
      );
    seen.add(index);
    ordered[index] = item?.embedding;
  });
  return ordered;
}
