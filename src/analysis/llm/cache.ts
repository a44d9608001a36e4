/**
 * Cache of validated model answers, keyed by (model, prompt version, content
 * hash): an unchanged file never reaches the model again. The store layer
 * provides a persistent implementation; this one lives in memory.
 */
import { createHash } from 'node:crypto';
import type { ModelAnswer } from './resources.js';

export interface AnalysisCache {
  get(key: string): ModelAnswer[] | undefined | Promise<ModelAnswer[] | undefined>;
  set(key: string, answers: ModelAnswer[]): void | Promise<void>;
}

export function analysisCacheKey(model: string, promptVersion: string, text: string): string {
  const content = createHash('sha256').update(text).digest('hex');
  return createHash('sha256').update(`${model}\0${promptVersion}\0${content}`).digest('hex');
}

/** The key of one part's answer, for a file asked about in several parts: its lines, under the file's key. */
export function analysisPartKey(fileKey: string, part: { firstLine: number; lastLine: number }): string {
  return `${fileKey}:${part.firstLine}-${part.lastLine}`;
}

export class MemoryAnalysisCache implements AnalysisCache {
  readonly #entries = new Map<string, ModelAnswer[]>();

  constructor(private readonly capacity = 10_000) {}

  get(key: string): ModelAnswer[] | undefined {
    const value = this.#entries.get(key);
    if (value) {
      // Refresh its place: the oldest entries are evicted first.
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: string, answers: ModelAnswer[]): void {
    this.#entries.delete(key);
    this.#entries.set(key, answers);
    if (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
