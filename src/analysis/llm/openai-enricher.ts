/**
 * LLM analysis through an OpenAI-compatible server: `POST
 * {baseUrl}/chat/completions` with the result schema as a strict
 * `json_schema` response format and temperature 0; the answer is read from
 * `choices[0].message.content` (or its `refusal`). Parts, validation,
 * retries, the cache and the circuit breaker are ModelEnricher's: whatever
 * goes wrong, the AST result stands and the fallback is reported as an
 * event.
 */
import { MODEL_ENRICHER_DEFAULTS } from '../../models/config.js';
import { type ServerFailure, UnusableAnswerError } from '../../models/http.js';
import { AnalysisError } from '../errors.js';
import { type ChatReply, ModelEnricher, type ModelEnricherOptions } from './model-enricher.js';
import {
  authRemedy,
  describeOpenAIFailure,
  isAuthFailure,
  isUnknownModel,
  OpenAIClient,
  type OpenAIServerOptions,
  unknownModelRemedy,
} from '../../models/openai-client.js';
import { checkAnswer, RESULT_SCHEMA, type Checked } from './resources.js';
import type { AnalysisBackend } from './backend.js';
import { strictSchema, withoutNulls } from './strict-schema.js';

export interface OpenAIEnricherOptions extends ModelEnricherOptions, OpenAIServerOptions {
  /** Names this kind where options of several kinds may be given (`llm: { kind: 'openai', … }`). */
  kind?: 'openai';
  /** The server's base URL, e.g. http://127.0.0.1:8080/v1. Required: nothing is sent anywhere unless asked. */
  baseUrl?: string;
  /** The chat model, as the server names it. Required. */
  model?: string;
  /** The model's context window in tokens: files larger than it go in parts. Default 8,192. */
  contextTokens?: number;
}

/** The response format: computed once, the same for every request. */
const RESPONSE_FORMAT = {
  type: 'json_schema',
  json_schema: { name: 'ocvector_analysis', schema: strictSchema(RESULT_SCHEMA), strict: true },
} as const;

/**
 * The analysis backend of OpenAI-compatible servers: used only when asked
 * for, with a model and a base URL (nothing is guessed, nothing probed). It
 * takes the address, key and deadline of the server given elsewhere (the
 * embedder's), never its model.
 */
export const openaiAnalysisBackend: AnalysisBackend<OpenAIEnricherOptions> = {
  name: 'openai',
  create: (options) => new OpenAIEnricher(options),
  serverSettings(settings) {
    const { baseUrl, apiKey, timeoutMs, maxResponseBytes } = settings as OpenAIServerOptions;
    return Object.fromEntries(
      Object.entries({ baseUrl, apiKey, timeoutMs, maxResponseBytes }).filter(([, value]) => value !== undefined),
    );
  },
  modelName: { required: 'the chat model the server serves' },
  needs: {
    setting: 'baseUrl',
    flag: '--openai-base-url',
    what: "the server's base URL, e.g. http://127.0.0.1:8080/v1",
  },
};

export class OpenAIEnricher extends ModelEnricher {
  readonly #client: OpenAIClient;

  /** Throws AnalysisError NOT_CONFIGURED without a model or a usable base URL. */
  constructor(options: OpenAIEnricherOptions) {
    const model = options.model?.trim();
    if (!model)
      throw new AnalysisError(
        'an OpenAI-compatible analysis model needs its name as the server serves it (model)',
        'NOT_CONFIGURED',
      );
    super(model, options, `openai:${model}`);
    try {
      // A deadline per request; the run's own signal aborts everything.
      this.#client = new OpenAIClient(options.baseUrl ?? '', {
        timeoutMs: options.timeoutMs ?? MODEL_ENRICHER_DEFAULTS.timeoutMs,
        signal: options.signal,
        maxResponseBytes: options.maxResponseBytes,
        apiKey: options.apiKey,
      });
    } catch (error) {
      throw new AnalysisError((error as Error).message, 'NOT_CONFIGURED');
    }
  }

  protected async chat(prompt: string): Promise<ChatReply> {
    const answer = await this.#client.post('chat/completions', {
      model: this.model,
      messages: [{ role: 'user', content: prompt }],
      response_format: RESPONSE_FORMAT,
      temperature: 0,
      stream: false,
    });
    const reply = answer as {
      choices?: { message?: { content?: unknown; refusal?: unknown } }[];
      usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
    } | null;
    const message = reply?.choices?.[0]?.message;
    if (!message) throw new UnusableAnswerError('the server answered without choices[0].message');
    const usage = {
      promptTokens: count(reply?.usage?.prompt_tokens),
      outputTokens: count(reply?.usage?.completion_tokens),
    };
    if (typeof message.refusal === 'string' && message.refusal) return { refusal: message.refusal, usage };
    return { content: typeof message.content === 'string' ? message.content : '', usage };
  }

  /** Strict answers write null for what they leave out: dropped before the full schema checks them. */
  protected override checkContent(content: string): Checked {
    return checkAnswer(content, withoutNulls);
  }

  /** A refused key or an unknown model says what to do, as the embedder's errors do. */
  protected describeFailure(error: unknown, signal: AbortSignal | undefined): ServerFailure {
    const failure = describeOpenAIFailure(error, signal);
    const client = this.#client;
    if (isAuthFailure(failure)) return { ...failure, message: `${failure.message}: ${authRemedy(client.hasApiKey)}` };
    if (isUnknownModel(failure))
      return {
        ...failure,
        message: `${failure.message}: ${unknownModelRemedy(`GET ${client.baseUrl}/models lists them`)}`,
      };
    return failure;
  }
}

/** A token count as the server gave it, where it is one. */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}
