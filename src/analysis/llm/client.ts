/**
 * What analysis and embedding share about talking to Ollama: the official
 * client with a deadline on every request (and the caller's signal), a cap
 * on the size of each answer, and a reading of what went wrong when a call
 * fails.
 */
import { Ollama } from 'ollama';

/** Bytes one answer may have. An embedding batch of 32 × 1,024 floats is about 0.7 MB as JSON. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 << 20;

/** An answer larger than the cap: the server misbehaves (or never ends its answer). */
export class ResponseTooLargeError extends Error {
  override readonly name = 'ResponseTooLargeError';
  constructor(readonly limit: number) {
    super(`the Ollama server's answer is larger than ${limit} bytes; the request was stopped`);
  }
}

export interface OllamaClientOptions {
  /** The deadline of a request, reading its answer included. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Bytes one answer may have. Default {@link DEFAULT_MAX_RESPONSE_BYTES}. */
  maxResponseBytes?: number | undefined;
}

/**
 * A client whose requests end at `timeoutMs` (the deadline covers reading the
 * answer, not only its headers), when `signal` aborts, or when an answer
 * grows past `maxResponseBytes`.
 */
export function ollamaClient(host: string, options: OllamaClientOptions): Ollama {
  const limit = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  return new Ollama({
    host,
    fetch: async (input, init) => {
      const deadline = new Deadline(options.timeoutMs, [init?.signal, options.signal]);
      try {
        const response = await fetch(input, { ...init, signal: deadline.signal });
        return capped(response, limit, () => deadline.clear());
      } catch (error) {
        deadline.clear();
        throw error;
      }
    },
  });
}

/**
 * One request's end: a timer of its own and the callers' signals, joined in
 * one controller that the timer holds (AbortSignal.timeout joined with
 * AbortSignal.any could be collected while a body was still being read, and
 * then never fired). Cleared when the answer has been read.
 */
class Deadline {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly #unlink: (() => void)[] = [];

  constructor(timeoutMs: number, signals: (AbortSignal | null | undefined)[]) {
    const controller = this.#controller;
    this.#timer = setTimeout(
      () => controller.abort(new DOMException(`no complete answer within ${timeoutMs} ms`, 'TimeoutError')),
      timeoutMs,
    );
    this.#timer.unref();
    controller.signal.addEventListener('abort', () => this.clear(), { once: true });
    for (const signal of signals) {
      if (!signal) continue;
      if (signal.aborted) controller.abort(signal.reason);
      const onAbort = () => controller.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#unlink.push(() => signal.removeEventListener('abort', onAbort));
    }
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  clear(): void {
    clearTimeout(this.#timer);
    for (const unlink of this.#unlink.splice(0)) unlink();
  }
}

/** The same response, whose body fails with ResponseTooLargeError past `limit` bytes; `done` runs when the body ends, however. */
function capped(response: Response, limit: number, done: () => void): Response {
  const announced = Number(response.headers.get('content-length') ?? Number.NaN);
  if (announced > limit) {
    void response.body?.cancel();
    throw new ResponseTooLargeError(limit);
  }
  if (!response.body) {
    done();
    return response;
  }
  let seen = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > limit) {
        done();
        controller.error(new ResponseTooLargeError(limit));
      } else controller.enqueue(chunk);
    },
    flush: done,
  });
  return new Response(response.body.pipeThrough(counter), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

export interface OllamaFailure {
  kind: 'aborted' | 'timeout' | 'http' | 'invalid-response' | 'unreachable';
  /** HTTP status, for 'http'. */
  status?: number;
  /** The server's message ('http'), what was wrong with the answer ('invalid-response'), or the network's cause ('unreachable'). */
  message: string;
}

export function describeOllamaFailure(error: unknown, signal: AbortSignal | undefined): OllamaFailure {
  const e = error as {
    name?: string;
    message?: string;
    status_code?: number;
    cause?: { name?: string; code?: string; message?: string };
  };
  if (signal?.aborted) return { kind: 'aborted', message: 'the run was aborted' };
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.cause?.name === 'TimeoutError')
    return { kind: 'timeout', message: '' };
  if (e.name === 'ResponseError')
    return {
      kind: 'http',
      ...(e.status_code === undefined ? {} : { status: e.status_code }),
      message: e.message ?? '',
    };
  if (error instanceof ResponseTooLargeError || e.cause instanceof ResponseTooLargeError)
    return {
      kind: 'invalid-response',
      message: (error instanceof ResponseTooLargeError ? error : (e.cause as ResponseTooLargeError)).message,
    };
  // The answer came, but is not JSON: the server was reached.
  if (e.name === 'SyntaxError')
    return {
      kind: 'invalid-response',
      message: `the Ollama server answered with something that is not JSON (${e.message ?? ''})`,
    };
  return { kind: 'unreachable', message: e.cause?.code ?? e.cause?.message ?? e.message ?? String(error) };
}

/**
 * An HTTP failure that says the server lacks the model asked for (Ollama
 * answers 404, "model \"m\" not found, try pulling it first"): the server
 * was reached, so the remedy is `ollama pull`, not `ollama serve`.
 */
export function isModelMissing(failure: OllamaFailure): boolean {
  return failure.kind === 'http' && (failure.status === 404 || /not found|pull/i.test(failure.message));
}
