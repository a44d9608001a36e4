/**
 * What analysis and embedding share about talking to Ollama: the official
 * client with a deadline on every request (and the caller's signal), and a
 * reading of what went wrong when a call fails.
 */
import { Ollama } from 'ollama';

/** A client whose requests end at `timeoutMs`, or when `signal` aborts. */
export function ollamaClient(host: string, timeoutMs: number, signal?: AbortSignal): Ollama {
  return new Ollama({
    host,
    fetch: (input, init) => {
      const signals = [AbortSignal.timeout(timeoutMs), ...(init?.signal ? [init.signal] : []), ...(signal ? [signal] : [])];
      return fetch(input, { ...init, signal: AbortSignal.any(signals) });
    },
  });
}

export interface OllamaFailure {
  kind: 'aborted' | 'timeout' | 'http' | 'unreachable';
  /** HTTP status, for 'http'. */
  status?: number;
  /** The server's message ('http'), or the network's cause ('unreachable'). */
  message: string;
}

export function describeOllamaFailure(error: unknown, signal: AbortSignal | undefined): OllamaFailure {
  const e = error as { name?: string; message?: string; status_code?: number; cause?: { code?: string; message?: string } };
  if (signal?.aborted) return { kind: 'aborted', message: 'the run was aborted' };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return { kind: 'timeout', message: '' };
  if (e.name === 'ResponseError') return { kind: 'http', ...(e.status_code === undefined ? {} : { status: e.status_code }), message: e.message ?? '' };
  return { kind: 'unreachable', message: e.cause?.code ?? e.cause?.message ?? e.message ?? String(error) };
}
