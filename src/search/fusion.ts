/**
 * Hybrid ranking: a weighted sum of the lexical (BM25) and vector (cosine)
 * scores, each divided by the best score in its own list, plus boosts for
 * names and paths the query spells out.
 *
 * Scores, not ranks: the evaluation sets (eval/README.md) showed reciprocal
 * rank fusion letting a middling vector hit overtake a clear BM25 winner,
 * because ranks forget how far ahead the winner was. Dividing by the best
 * score keeps that margin and puts both lists on 0..1 without tuning.
 */
import type { QueryKind } from './query.js';

export interface FusionWeights {
  lexical: number;
  vector: number;
}

/**
 * Per query kind. For a question in words the vector list counts half: with
 * code and whole files in the lexical evidence, the built-in embedder's
 * hashed sub-words mostly repeat what BM25 found, less precisely (the
 * benchmark: 0.5 ahead of 0.3, 0.7, 1 and 1.4). For a name or a path the
 * lexical list leads further: the vector side only blurs an exact match.
 */
export const DEFAULT_FUSION_WEIGHTS: Readonly<Record<QueryKind, FusionWeights>> = {
  identifier: { lexical: 1, vector: 0.4 },
  path: { lexical: 1, vector: 0.3 },
  prose: { lexical: 1, vector: 0.5 },
};

/** Added for a name the query spells exactly: above anything fusion alone can give (at most lexical + vector weight, under 2). */
export const EXACT_NAME_BOOST = 2;
/** The query's last segment names the element (`Index.search` ~ `FaissIndex.search`). */
export const PARTIAL_NAME_BOOST = 0.6;
/** The element's file matches a path the query names. */
export const PATH_BOOST = 0.6;

export interface ScoredHit {
  id: number;
  /** Higher is better: BM25 (negated, as FTS5 gives it lower-is-better) or cosine similarity. */
  score: number;
}

export interface FusedCandidate {
  id: number;
  score: number;
  lexicalRank?: number;
  vectorRank?: number;
  vectorScore?: number;
}

/** Each list best first; ranks in the result are 1-based. */
export function fuseScores(
  lexical: readonly ScoredHit[],
  vector: readonly ScoredHit[],
  weights: FusionWeights,
): Map<number, FusedCandidate> {
  const fused = new Map<number, FusedCandidate>();
  const entry = (id: number) => {
    let candidate = fused.get(id);
    if (!candidate) fused.set(id, (candidate = { id, score: 0 }));
    return candidate;
  };
  const lexicalScores = relativeScores(lexical);
  lexical.forEach(({ id }, i) => {
    const candidate = entry(id);
    candidate.lexicalRank = i + 1;
    candidate.score += weights.lexical * lexicalScores[i]!;
  });
  const vectorScores = relativeScores(vector);
  vector.forEach(({ id, score }, i) => {
    const candidate = entry(id);
    candidate.vectorRank = i + 1;
    candidate.vectorScore = score;
    candidate.score += weights.vector * vectorScores[i]!;
  });
  return fused;
}

/**
 * Each score over the list's best, so the best is 1. A list whose best is
 * not positive (cosines can be) says only its order: 1 down to 0 by rank.
 */
export function relativeScores(list: readonly ScoredHit[]): number[] {
  const best = list[0]?.score ?? 0;
  if (best > 0) return list.map(({ score }) => Math.max(0, score / best));
  return list.map((_, i) => 1 - i / list.length);
}

export type NameMatch = 'exact' | 'partial';

/**
 * How an element's qualified name (`IndexStore.open`) matches an identifier
 * the query spells. Case is ignored, except that an identifier written with
 * capitals names exactly that: `Serialize` is the trait, and a method
 * `serialize` or a field `visitor` only resembles it (partial).
 */
export function nameMatch(name: string, identifiers: readonly string[]): NameMatch | undefined {
  const lower = name.toLowerCase();
  const last = lastSegment(lower);
  let best: NameMatch | undefined;
  for (const identifier of identifiers) {
    const written = identifier.replace(/::|#/g, '.');
    const wanted = written.toLowerCase();
    if (lower === wanted || lower.endsWith(`.${wanted}`)) {
      if (written === wanted || name === written || name.endsWith(`.${written}`)) return 'exact';
      best = 'partial';
    } else if (last === lastSegment(wanted)) best = 'partial';
  }
  return best;
}

function lastSegment(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}
