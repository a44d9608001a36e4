/**
 * The baseline the commit sets are scored against: plain Okapi BM25 where
 * each document is one whole file (its content; the path is not added), in
 * this project's own tokenisation (src/text/terms.ts: identifiers split
 * into sub-words, lower-cased, lightly stemmed), with no stop words, no
 * boosts and no priors. What a whole-file lexical search finds with no
 * ranking stack at all.
 */
import { terms } from '../../src/internal.js';

/** Term-frequency saturation and length normalisation: the usual Okapi values. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** A file, as its text or as the terms its text gives (where the caller keeps them between rankings). */
export type Bm25Document = { path: string; text: string } | { path: string; tokens: readonly string[] };

export interface Bm25Hit {
  path: string;
  score: number;
}

export class FileBm25 {
  readonly #paths: string[] = [];
  readonly #lengths: number[] = [];
  /** term -> (document index -> occurrences) */
  readonly #postings = new Map<string, Map<number, number>>();
  readonly #averageLength: number;
  readonly #tokenize: (text: string) => string[];

  constructor(documents: Iterable<Bm25Document>, tokenize: (text: string) => string[] = terms) {
    this.#tokenize = tokenize;
    let total = 0;
    for (const document of documents) {
      const index = this.#paths.length;
      const tokens = 'tokens' in document ? document.tokens : tokenize(document.text);
      this.#paths.push(document.path);
      this.#lengths.push(tokens.length);
      total += tokens.length;
      for (const token of tokens) {
        let posting = this.#postings.get(token);
        if (!posting) this.#postings.set(token, (posting = new Map()));
        posting.set(index, (posting.get(index) ?? 0) + 1);
      }
    }
    this.#averageLength = this.#paths.length > 0 ? total / this.#paths.length : 0;
  }

  get size(): number {
    return this.#paths.length;
  }

  /** Inverse document frequency, in the form that never goes negative: ln(1 + (N - n + 0.5) / (n + 0.5)). */
  idf(term: string): number {
    const n = this.#postings.get(term)?.size ?? 0;
    return Math.log(1 + (this.#paths.length - n + 0.5) / (n + 0.5));
  }

  /** The files that hold any of the query's terms (each term counted once), best first; ties by path. */
  rank(query: string): Bm25Hit[] {
    const scores = new Map<number, number>();
    for (const term of new Set(this.#tokenize(query))) {
      const posting = this.#postings.get(term);
      if (!posting) continue;
      const idf = this.idf(term);
      for (const [index, tf] of posting) {
        const norm = 1 - BM25_B + (BM25_B * this.#lengths[index]!) / (this.#averageLength || 1);
        scores.set(index, (scores.get(index) ?? 0) + (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * norm));
      }
    }
    return [...scores]
      .map(([index, score]) => ({ path: this.#paths[index]!, score }))
      .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}
