/** Element ids with scores, as both stores' lexical reads return them. */

export interface IdScore {
  id: number;
  /** Higher is better (BM25 negated: FTS5 gives it lower-is-better). */
  score: number;
}

/** Scores of several lists summed by id, best first. */
export function sumById(lists: readonly (readonly IdScore[])[]): IdScore[] {
  const scores = new Map<number, number>();
  for (const list of lists) for (const { id, score } of list) scores.set(id, (scores.get(id) ?? 0) + score);
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}
