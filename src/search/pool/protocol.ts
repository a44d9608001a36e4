/**
 * What a SearcherPool and its worker threads say to each other. Each worker
 * holds a Searcher of its own over the same index; the pool sends it a
 * method of the SearchService and its arguments, and gets the value back,
 * or the error as its class name, code and message (a thrown error loses
 * its class on the way between threads: decodeError makes it again, so a
 * caller still branches on `instanceof SearchError` and `code`).
 */
import { OcvectorError } from '../../errors.js';
import { PathOutsideRootError } from '../../files/errors.js';
import { FaissError } from '../../native/errors.js';
import { StoreError } from '../../store/errors.js';
import type { Repository } from '../../store/rows.js';
import { EmbedderError } from '../../vector/embedder.js';
import { SearchError } from '../errors.js';
import type { SearchEvent, SearcherOptions } from '../searcher.js';

/** The Searcher methods a worker answers. */
export type PooledMethod =
  | 'search'
  | 'searchFiles'
  | 'references'
  | 'searchRoots'
  | 'currentRepositories'
  | 'embedderStatus';

/** What a worker opens its Searcher with: SearcherOptions that can cross to another thread. */
export type WorkerSearcherOptions = Omit<SearcherOptions, 'embedder' | 'store' | 'onEvent'> & {
  store?: Exclude<SearcherOptions['store'], { read: unknown }>;
};

export interface SearchWorkerData {
  options: WorkerSearcherOptions;
  /** Modules imported before the Searcher opens (where embedder backends register themselves). */
  preload: readonly string[];
}

export interface SerializedError {
  name: string;
  message: string;
  code?: string;
}

export type ToWorker = { id: number; method: PooledMethod; args: unknown[] } | { shutdown: true };

/** Facts of the open Searcher that its callers read without a call. */
export interface SearcherFacts {
  indexDir: string;
  root: string;
  embedderId: string;
  repositories: readonly Repository[];
}

export type FromWorker =
  | { opened: SearcherFacts }
  | { openFailed: SerializedError }
  /** `facts` when they changed since the worker last said them (a repository indexed, another embedder). */
  | { id: number; value: unknown; facts?: SearcherFacts }
  | { id: number; error: SerializedError }
  | { event: SearchEvent };

export function encodeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const code = (error as { code?: unknown }).code;
  return { name: error.name, message: error.message, ...(typeof code === 'string' ? { code } : {}) };
}

/** The error classes a Searcher throws, by name: made again on the pool's side. */
const ERROR_CLASSES: Record<string, new (message: string, code: never) => Error> = {
  SearchError,
  StoreError,
  FaissError,
  EmbedderError,
  OcvectorError,
};

export function decodeError({ name, message, code }: SerializedError): Error {
  if (name === 'PathOutsideRootError') return new PathOutsideRootError(message);
  const made = ERROR_CLASSES[name];
  if (made && code !== undefined) return new made(message, code as never);
  return Object.assign(new Error(message), { name });
}
