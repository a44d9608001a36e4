/**
 * Scores for issue localisation (issue text → the files the fix changed),
 * with the rules of ../shared/localisation-dev/README.md:
 *
 * - a ranking is deduplicated, each path kept at its first place;
 * - Acc@k is 1 when **every** gold file is among the first k distinct files
 *   (so an instance with more than k gold files scores 0);
 * - the reciprocal rank is 1 / the rank of the first gold file anywhere in
 *   the list, 0 when none is listed (no cut at 10);
 * - Recall@k is the share of the gold files among the first k;
 * - exact relative paths only; an empty or failed ranking scores 0 and
 *   stays in the denominator.
 *
 * src/eval/metrics.ts scores one answer per query and cuts the MRR at 10;
 * these rules differ on both counts, so they live here.
 */

export const ACC_KS = [1, 3, 5, 10] as const;
export const RECALL_KS = [5, 10] as const;
export type AccK = (typeof ACC_KS)[number];
export type RecallK = (typeof RECALL_KS)[number];

export interface InstanceScore {
  /** 1-based rank of each gold file in the deduplicated ranking, 0 when absent (in the order of `gold`). */
  ranks: number[];
  acc: Record<AccK, number>;
  recall: Record<RecallK, number>;
  /** 1 / the rank of the first gold file, 0 when none is listed. */
  reciprocalRank: number;
}

export interface LocaliseScores {
  instances: number;
  acc: Record<AccK, number>;
  recall: Record<RecallK, number>;
  mrr: number;
}

/** Distinct paths in the order the ranking first names them. */
export function distinctPaths(paths: Iterable<string>): string[] {
  return [...new Set(paths)];
}

/** Scores one ranking against its gold set (which may not be empty). */
export function scoreInstance(ranking: readonly string[], gold: readonly string[]): InstanceScore {
  const wanted = [...new Set(gold)];
  if (wanted.length === 0) throw new RangeError('an instance needs at least one gold file to be scored');
  const files = distinctPaths(ranking);
  const place = new Map(files.map((path, i) => [path, i + 1]));
  const ranks = wanted.map((path) => place.get(path) ?? 0);
  const found = ranks.filter((rank) => rank > 0);
  const within = (k: number) => found.filter((rank) => rank <= k).length;
  const acc = Object.fromEntries(ACC_KS.map((k) => [k, within(k) === wanted.length ? 1 : 0])) as Record<AccK, number>;
  const recall = Object.fromEntries(RECALL_KS.map((k) => [k, within(k) / wanted.length])) as Record<RecallK, number>;
  const first = found.length > 0 ? Math.min(...found) : 0;
  return { ranks, acc, recall, reciprocalRank: first > 0 ? 1 / first : 0 };
}

/** An instance whose ranking failed or came back empty: every score 0, the instance still counted. */
export function failedInstance(gold: readonly string[]): InstanceScore {
  return scoreInstance([], gold);
}

/** The means over a group of instances (all 0 for an empty group, with `instances` 0 to say so). */
export function summariseScores(scores: readonly InstanceScore[]): LocaliseScores {
  const n = scores.length;
  const mean = (pick: (score: InstanceScore) => number) =>
    n === 0 ? 0 : scores.reduce((sum, score) => sum + pick(score), 0) / n;
  return {
    instances: n,
    acc: Object.fromEntries(ACC_KS.map((k) => [k, mean((s) => s.acc[k])])) as Record<AccK, number>,
    recall: Object.fromEntries(RECALL_KS.map((k) => [k, mean((s) => s.recall[k])])) as Record<RecallK, number>,
    mrr: mean((s) => s.reciprocalRank),
  };
}

/** Groups items by a key (an item may fall in several groups, or none), keys in first-seen order. */
export function groupBy<T>(items: readonly T[], keys: (item: T) => readonly string[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items)
    for (const key of keys(item)) {
      let group = groups.get(key);
      if (!group) groups.set(key, (group = []));
      group.push(item);
    }
  return groups;
}
