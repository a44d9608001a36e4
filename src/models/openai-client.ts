/**
 * A small client for OpenAI-compatible servers (llama.cpp's server, LM
 * Studio, vLLM, Ollama's /v1, hosted APIs): JSON requests to `{baseUrl}/…`
 * over the bounded fetch (deadline, size cap), with the API key, when there
 * is one, as a bearer token. It reads no environment variable: the CLIs
 * pass the key they read.
 */
import {
  boundedFetch,
  type BoundedFetchOptions,
  describeServerFailure,
  HttpStatusError,
  type ServerFailure,
} from './http.js';

/** Where an OpenAI-compatible server is, and how to talk to it: what embeddings and analysis share. */
export interface OpenAIServerOptions {
  /** The API's base URL, up to and including its version: `http://127.0.0.1:8080/v1`. */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer <apiKey>`; none is sent without it. */
  apiKey?: string;
  /** Per request, reading the answer included. Default 120 s. */
  timeoutMs?: number;
  /** Bytes one answer may have. Default 64 MiB. */
  maxResponseBytes?: number;
}

/** What the CLIs call the variable they read the key from: messages name it. */
export const API_KEY_VARIABLE = 'OCVECTOR_API_KEY';

/**
 * The base URL as a canonical string (no trailing slash). A URL that is not
 * http(s), or that carries credentials (fetch refuses those, and the index
 * records the URL), is refused with what to do instead.
 */
function resolveBaseUrl(baseUrl: string | undefined): string {
  const value = baseUrl?.trim();
  if (!value)
    throw new TypeError(
      'an OpenAI-compatible server needs its base URL (baseUrl; the CLIs: --openai-base-url), e.g. http://127.0.0.1:8080/v1',
    );
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`"${value}" is not a URL; give the server's base URL, e.g. http://127.0.0.1:8080/v1`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`the base URL must be http or https, not ${url.protocol} (${value})`);
  if (url.username || url.password)
    throw new TypeError(
      `the base URL must not carry credentials: give the API key as apiKey (the CLIs read ${API_KEY_VARIABLE})`,
    );
  return url.toString().replace(/\/+$/, '');
}

export class OpenAIClient {
  readonly baseUrl: string;
  readonly #options: BoundedFetchOptions;
  readonly #apiKey: string | undefined;
  readonly #fetch: typeof fetch;

  constructor(baseUrl: string, options: BoundedFetchOptions & { apiKey?: string | undefined }) {
    this.baseUrl = resolveBaseUrl(baseUrl);
    const { apiKey, ...bounds } = options;
    this.#options = bounds;
    this.#apiKey = apiKey || undefined;
    this.#fetch = boundedFetch(bounds);
  }

  /** True when requests carry an API key. */
  get hasApiKey(): boolean {
    return this.#apiKey !== undefined;
  }

  /** POSTs `body` as JSON to `{baseUrl}/{path}` and returns the parsed answer; HttpStatusError for a status other than 2xx. */
  async post(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    return this.#request(this.#fetch, path, {
      method: 'POST',
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  }

  /** The model ids the server lists (`GET {baseUrl}/models`), within `timeoutMs` when given (else the client's deadline). */
  async models(options: { signal?: AbortSignal | undefined; timeoutMs?: number } = {}): Promise<string[]> {
    const bounded = options.timeoutMs ? boundedFetch({ ...this.#options, timeoutMs: options.timeoutMs }) : this.#fetch;
    const answer = (await this.#request(bounded, 'models', options.signal ? { signal: options.signal } : {})) as {
      data?: { id?: unknown }[];
    } | null;
    return Array.isArray(answer?.data)
      ? answer.data.map((model) => model?.id).filter((id): id is string => typeof id === 'string')
      : [];
  }

  async #request(bounded: typeof fetch, path: string, init: RequestInit): Promise<unknown> {
    const response = await bounded(`${this.baseUrl}/${path}`, {
      ...init,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(this.#apiKey ? { authorization: `Bearer ${this.#apiKey}` } : {}),
      },
    });
    // Read whole either way: the deadline and the size cap cover the body.
    const text = await response.text();
    if (!response.ok) throw new HttpStatusError(response.status, errorMessage(text) || response.statusText);
    return JSON.parse(text) as unknown;
  }
}

/** The message of an OpenAI-style error body (`{"error": {"message"}}`, or `{"error": "…"}`), else the text, shortened. */
function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    if (typeof message === 'string') return message;
  } catch {
    // Not JSON: the text itself says what happened.
  }
  return text.trim().slice(0, 300);
}

export function describeOpenAIFailure(error: unknown, signal: AbortSignal | undefined): ServerFailure {
  return describeServerFailure(error, signal, 'the server');
}

/**
 * An HTTP failure that says the server does not serve the model asked for:
 * 404 (OpenAI: "The model `m` does not exist"; also a wrong base URL), or
 * another 4xx whose message says so (some servers answer 400).
 */
export function isUnknownModel(failure: ServerFailure): boolean {
  if (failure.kind !== 'http') return false;
  if (failure.status === 404) return true;
  return (
    (failure.status ?? 0) >= 400 &&
    (failure.status ?? 0) < 500 &&
    /model/i.test(failure.message) &&
    /not found|does not exist|unknown|no such/i.test(failure.message)
  );
}

/** 401 or 403: the server wants a key, or refuses the one given. */
export function isAuthFailure(failure: ServerFailure): boolean {
  return failure.kind === 'http' && (failure.status === 401 || failure.status === 403);
}

/** What to do about a refused request, for a client that sent a key or did not. */
export function authRemedy(sentKey: boolean): string {
  return sentKey
    ? `check the API key given (${API_KEY_VARIABLE}; apiKey in the library)`
    : `it wants an API key: set ${API_KEY_VARIABLE} (apiKey in the library)`;
}

/** What to do about a model the server does not serve; `served` says what it lists, or how to ask. */
export function unknownModelRemedy(served: string): string {
  return `check the model name it serves (${served}) and the base URL (it usually ends in /v1)`;
}
