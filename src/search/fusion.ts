/**
 * Hybrid ranking: weighted reciprocal rank fusion of the lexical (BM25) and
 * vector (k-NN) lists, plus boosts for names and paths the query spells
 * out. RRF uses ranks only, so BM25's unbounded scores and cosine
 * similarities never have to be put on one scale.
 */
import type { QueryKind } from './query.js';

export interface FusionWeights {
  lexical: number;
  vector: number;
}

/**
 * Per query kind. The lexical list leads: a weaker vector signal at equal
 * weight pulls good lexical hits down (see bench/ and the evaluation sets).
 */
export const DEFAULT_FUSION_WEIGHTS: Readonly<Record<QueryKind, FusionWeights>> = {
  identifier: { lexical: 1, vector: 0.4 },
  path: { lexical: 1, vector: 0.3 },
  prose: { lexical: 1, vector: 0.7 },
};

/** RRF's rank offset: smaller than the customary 60, so the top of each list counts for more. */
export const RRF_K = 20;

/** Added for a name the query spells exactly: above anything fusion alone can give (at most (1 + w) / (RRF_K + 1)). */
export const EXACT_NAME_BOOST = 0.1;
/** The query's last segment names the element (`Index.search` ~ `FaissIndex.search`). */
export const PARTIAL_NAME_BOOST = 0.03;
/** The element's file matches a path the query names. */
export const PATH_BOOST = 0.03;

export interface FusedCandidate {
  id: number;
  score: number;
  lexicalRank?: number;
  vectorRank?: number;
  vectorScore?: number;
}

/** Ranks are 1-based; each list is best first. */
export function fuseRanks(lexical: readonly number[], vector: readonly { id: number; score: number }[], weights: FusionWeights): Map<number, FusedCandidate> {
  const fused = new Map<number, FusedCandidate>();
  const entry = (id: number) => {
    let candidate = fused.get(id);
    if (!candidate) fused.set(id, (candidate = { id, score: 0 }));
    return candidate;
  };
  lexical.forEach((id, i) => {
    const candidate = entry(id);
    candidate.lexicalRank = i + 1;
    candidate.score += weights.lexical / (RRF_K + i + 1);
  });
  vector.forEach(({ id, score }, i) => {
    const candidate = entry(id);
    candidate.vectorRank = i + 1;
    candidate.vectorScore = score;
    candidate.score += weights.vector / (RRF_K + i + 1);
  });
  return fused;
}

export type NameMatch = 'exact' | 'partial';

/** How an element's qualified name (`IndexStore.open`) matches an identifier the query spells. */
export function nameMatch(name: string, identifiers: readonly string[]): NameMatch | undefined {
  const lower = name.toLowerCase();
  const last = lastSegment(lower);
  let best: NameMatch | undefined;
  for (const identifier of identifiers) {
    const wanted = identifier.toLowerCase().replace(/::|#/g, '.');
    if (lower === wanted || lower.endsWith(`.${wanted}`)) return 'exact';
    if (last === lastSegment(wanted)) best = 'partial';
  }
  return best;
}

function lastSegment(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}
