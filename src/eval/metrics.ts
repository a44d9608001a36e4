/** Retrieval scores: hit@k and mean reciprocal rank over ranked lists. */

export interface RetrievalScores {
  queries: number;
  hitAt1: number;
  hitAt5: number;
  hitAt10: number;
  /** Mean reciprocal rank of the first right answer within the top 10 (0 when none). */
  mrr: number;
}

/** The 1-based rank of the first item that answers, or 0 when none does. */
export function firstRank<T>(items: readonly T[], answers: (item: T) => boolean): number {
  const index = items.findIndex(answers);
  return index + 1;
}

export function scoreRanks(ranks: readonly number[]): RetrievalScores {
  const n = ranks.length;
  const share = (predicate: (rank: number) => boolean) => (n === 0 ? 0 : ranks.filter(predicate).length / n);
  return {
    queries: n,
    hitAt1: share((rank) => rank === 1),
    hitAt5: share((rank) => rank >= 1 && rank <= 5),
    hitAt10: share((rank) => rank >= 1 && rank <= 10),
    mrr: n === 0 ? 0 : ranks.reduce((sum, rank) => sum + (rank >= 1 && rank <= 10 ? 1 / rank : 0), 0) / n,
  };
}
