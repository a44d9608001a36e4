/**
 * Evidence of the whole file: BM25 with files as the documents. An element
 * is scored on its own words, so a large file that answers a question
 * across several of its elements (a repository's `repo.ex`, curl's `url.c`)
 * loses to a small element that happens to hold two of the words. Here a
 * term's frequency in a file is the number of its elements that hold it,
 * and a file's length is its number of elements (at least FILE_BM25_MIN_LENGTH
 * of the mean).
 */

import type { FileTermCounts } from '../../store/rows.js';
import { FILE_BM25_B as B, FILE_BM25_K1 as K1, FILE_BM25_MIN_LENGTH } from './knobs.js';

/** Each file's BM25 over the best file's (1 for the best), for the files that hold any term. */
export function fileScores({ perTerm, sizes, files, averageSize }: FileTermCounts): Map<number, number> {
  const scores = new Map<number, number>();
  const average = averageSize > 0 ? averageSize : 1;
  const shortest = FILE_BM25_MIN_LENGTH * average;
  for (const counts of perTerm) {
    const idf = Math.log(1 + (files - counts.size + 0.5) / (counts.size + 0.5));
    for (const [file, tf] of counts) {
      const length = K1 * (1 - B + (B * Math.max(shortest, sizes.get(file) ?? average)) / average);
      scores.set(file, (scores.get(file) ?? 0) + (idf * tf * (K1 + 1)) / (tf + length));
    }
  }
  let best = 0;
  for (const score of scores.values()) best = Math.max(best, score);
  if (best > 0) for (const [file, score] of scores) scores.set(file, score / best);
  return scores;
}
