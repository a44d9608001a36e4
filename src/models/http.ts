/**
 * What every request to a model server shares, whatever its API (Ollama's,
 * or an OpenAI-compatible one): a deadline that covers reading the answer,
 * the caller's signal, a cap on the size of the answer, and a reading of
 * what went wrong when a request fails.
 */

/** Bytes one answer may have. An embedding batch of 32 × 1,024 floats is about 0.7 MB as JSON. */
const DEFAULT_MAX_RESPONSE_BYTES = 64 << 20;

/** An answer larger than the cap: the server misbehaves (or never ends its answer). */
class ResponseTooLargeError extends Error {
  override readonly name = 'ResponseTooLargeError';
  constructor(readonly limit: number) {
    super(`the server's answer is larger than ${limit} bytes; the request was stopped`);
  }
}

/** An answer with an HTTP error status, and the server's own message for it. */
export class HttpStatusError extends Error {
  override readonly name = 'HttpStatusError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** An answer that is JSON but not of the shape the API promises (no `choices`, say). */
export class UnusableAnswerError extends Error {
  override readonly name = 'UnusableAnswerError';
}

export interface BoundedFetchOptions {
  /** The deadline of a request, reading its answer included. */
  timeoutMs: number;
  /**
   * With true, each chunk of the answer starts the deadline again: a streamed answer that keeps
   * coming is never cut, however long it takes, and one that stops for `timeoutMs` is (a small
   * model on a CPU writes for minutes; a hung server says nothing).
   */
  idle?: boolean | undefined;
  signal?: AbortSignal | undefined;
  /** Bytes one answer may have. Default {@link DEFAULT_MAX_RESPONSE_BYTES}. */
  maxResponseBytes?: number | undefined;
}

/**
 * A fetch whose requests end at `timeoutMs` (the deadline covers reading the
 * answer, not only its headers), when `signal` or the request's own signal
 * aborts, or when an answer grows past `maxResponseBytes`.
 */
export function boundedFetch(options: BoundedFetchOptions): typeof fetch {
  const limit = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  return async (input, init) => {
    const deadline = new Deadline(options.timeoutMs, [init?.signal, options.signal], options.idle === true);
    try {
      const response = await fetch(input, { ...init, signal: deadline.signal });
      return capped(response, limit, () => deadline.clear(), options.idle ? () => deadline.restart() : undefined);
    } catch (error) {
      deadline.clear();
      throw error;
    }
  };
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
  #cleared = false;

  constructor(timeoutMs: number, signals: (AbortSignal | null | undefined)[], idle = false) {
    const controller = this.#controller;
    const what = idle ? `nothing more of the answer for ${timeoutMs} ms` : `no complete answer within ${timeoutMs} ms`;
    this.#timer = setTimeout(() => controller.abort(new DOMException(what, 'TimeoutError')), timeoutMs);
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

  /** The whole time again from now (an answer that is still coming). */
  restart(): void {
    if (!this.#cleared && !this.#controller.signal.aborted) this.#timer.refresh();
  }

  clear(): void {
    this.#cleared = true;
    clearTimeout(this.#timer);
    for (const unlink of this.#unlink.splice(0)) unlink();
  }
}

/**
 * The same response, whose body fails with ResponseTooLargeError past `limit` bytes; `done` runs
 * when the body ends, however, and `onChunk` at each chunk that comes.
 */
function capped(response: Response, limit: number, done: () => void, onChunk?: () => void): Response {
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
      onChunk?.();
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

/** What went wrong with a request to a model server, in the terms its callers act on. */
export interface ServerFailure {
  kind: 'aborted' | 'timeout' | 'http' | 'invalid-response' | 'unreachable';
  /** HTTP status, for 'http'. */
  status?: number;
  /** The server's message ('http'), what was wrong with the answer ('invalid-response'), or the network's cause ('unreachable'). */
  message: string;
  /** No later request can succeed either (the server lacks the model): stop asking at once. */
  final?: boolean;
}

/**
 * Reads a failed request: `server` names the server in messages ("the
 * Ollama server"). HTTP errors are HttpStatusError, or the ollama client's
 * ResponseError (which carries `status_code`).
 */
export function describeServerFailure(error: unknown, signal: AbortSignal | undefined, server: string): ServerFailure {
  const e = error as {
    name?: string;
    message?: string;
    status_code?: number;
    cause?: { name?: string; code?: string; message?: string };
  };
  if (signal?.aborted) return { kind: 'aborted', message: 'the run was aborted' };
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.cause?.name === 'TimeoutError')
    return { kind: 'timeout', message: '' };
  if (error instanceof HttpStatusError) return { kind: 'http', status: error.status, message: error.message };
  if (e.name === 'ResponseError')
    return {
      kind: 'http',
      ...(e.status_code === undefined ? {} : { status: e.status_code }),
      message: e.message ?? '',
    };
  if (error instanceof UnusableAnswerError) return { kind: 'invalid-response', message: error.message };
  if (error instanceof ResponseTooLargeError || e.cause instanceof ResponseTooLargeError)
    return {
      kind: 'invalid-response',
      message: (error instanceof ResponseTooLargeError ? error : (e.cause as ResponseTooLargeError)).message,
    };
  // The answer came, but is not JSON: the server was reached.
  if (e.name === 'SyntaxError')
    return {
      kind: 'invalid-response',
      message: `${server} answered with something that is not JSON (${e.message ?? ''})`,
    };
  return { kind: 'unreachable', message: e.cause?.code ?? e.cause?.message ?? e.message ?? String(error) };
}

/** Network errors that mean nothing listens at the address (rather than a server that answered and failed). */
export function isNoListener(failure: ServerFailure): boolean {
  return failure.kind === 'unreachable' && NO_LISTENER.test(failure.message);
}

const NO_LISTENER = /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL)$/;
