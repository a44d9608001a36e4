/**
 * What analysis and embedding share about talking to Ollama: the official
 * client over a bounded fetch (a deadline on every request, the caller's
 * signal, a cap on the size of each answer), and a reading of what went
 * wrong when a call fails.
 */
import { createRequire } from 'node:module';
import type { Ollama } from 'ollama';
import { boundedFetch, type BoundedFetchOptions, describeServerFailure, type ServerFailure } from './http.js';

const require = createRequire(import.meta.url);

export type OllamaClientOptions = BoundedFetchOptions;
export type OllamaFailure = ServerFailure;

/**
 * A client whose requests end at `timeoutMs` (the deadline covers reading the
 * answer, not only its headers), when `signal` aborts, or when an answer
 * grows past `maxResponseBytes`.
 */
export function ollamaClient(host: string, options: OllamaClientOptions): Ollama {
  // Loaded at the first client, not at import: a run without Ollama (the
  // built-in embedder, a search) saves its load (docs/performance.md, "The figures behind the constants").
  const { Ollama } = require('ollama') as typeof import('ollama');
  return new Ollama({ host, fetch: boundedFetch(options) });
}

/** What the ollama client throws when a streamed answer ends without its last part (done): the server answered, unusably. */
const UNFINISHED_STREAM = /did not receive done or success response in stream/i;

export function describeOllamaFailure(error: unknown, signal: AbortSignal | undefined): OllamaFailure {
  const failure = describeServerFailure(error, signal, 'the Ollama server');
  if (failure.kind === 'unreachable' && UNFINISHED_STREAM.test((error as Error | undefined)?.message ?? ''))
    return { kind: 'invalid-response', message: 'the Ollama server ended its answer before it was complete' };
  return failure;
}

/** What to tell a user whose Ollama server lacks a model: which server, which model, the command that mends it. */
export function missingModelMessage(host: string, model: string): string {
  return `the Ollama server at ${host} has no model ${model}: run \`ollama pull ${model}\` there`;
}

/**
 * An HTTP failure that says the server lacks the model asked for (Ollama
 * answers 404, "model \"m\" not found, try pulling it first"): the server
 * was reached, so the remedy is `ollama pull`, not `ollama serve`.
 */
export function isModelMissing(failure: OllamaFailure): boolean {
  return failure.kind === 'http' && (failure.status === 404 || /not found|pull/i.test(failure.message));
}
