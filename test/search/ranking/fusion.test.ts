/**
 * The fusion of the two lists as the ranking does it: `gatherCandidates`
 * (fusion.ts) puts each list over its best, `scoreOf` (score.ts) weighs
 * them, through `rankCandidates`, the path every search takes. The rows
 * share no word with the query and each has a file of its own, so that the
 * two lists are the only evidence.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FUSION_WEIGHTS,
  relativeScores,
  spreadScores,
  type FusionWeights,
  type ScoredHit,
} from '../../../src/search/ranking/fusion.js';
import { parseQuery } from '../../../src/search/query.js';
import { rankCandidates, type CandidateRow } from '../../../src/search/ranking/ranking.js';

const ROWS: CandidateRow[] = [1, 2, 3].map((id) => ({
  id,
  fileId: id * 10,
  path: `src/part${id}.ts`,
  type: 'function',
  name: `part${id}`,
  startLine: 1,
  endLine: 5,
}));
const rows = new Map(ROWS.map((row) => [row.id, row]));
const QUERY = parseQuery('how totals are rounded before they are shown');

function rank(lexical: ScoredHit[], vector: ScoredHit[], weights: FusionWeights, crowdedCosines = false) {
  const evidence = { lexical, vector, crowdedCosines, definitions: new Set<number>(), namedFiles: new Set<number>() };
  return rankCandidates(QUERY, evidence, rows, {
    k: 10,
    weights,
    lexicalSignals: true,
  });
}
const order = (lexical: ScoredHit[], vector: ScoredHit[], weights: FusionWeights) =>
  rank(lexical, vector, weights).map((hit) => hit.row.id);

describe('score fusion, as the ranking weighs the two lists', () => {
  it('keeps a clear BM25 winner above a middling hit the vector list prefers; in a close race the vector decides', () => {
    expect(QUERY.kind).toBe('prose');
    const weights = DEFAULT_FUSION_WEIGHTS.prose;
    // Element 1 is far ahead lexically; element 2 is second lexically and first by vector.
    const vector = [
      { id: 2, score: 0.5 },
      { id: 1, score: 0.45 },
      { id: 3, score: 0.2 },
    ];
    const clear = [
      { id: 1, score: 20 },
      { id: 2, score: 9 },
      { id: 3, score: 8 },
    ];
    expect(order(clear, vector, weights)).toEqual([1, 2, 3]);
    // Ranks alone could not tell: 1 and 2 swap places between the lists. With a close lexical race, the vector decides.
    const close = [
      { id: 1, score: 10 },
      { id: 2, score: 9.8 },
      { id: 3, score: 8 },
    ];
    expect(order(close, vector, weights)).toEqual([2, 1, 3]);
  });

  it('weighs each list by its own weight: a hit only the vectors found counts by the vector weight', () => {
    const lexical = [
      { id: 1, score: 10 },
      { id: 2, score: 6 },
    ];
    const vector = [
      { id: 3, score: 0.8 },
      { id: 2, score: 0.4 },
    ];
    // Over each list's best: 1 is (1, 0), 2 is (0.6, 0.5), 3 is (0, 1).
    expect(order(lexical, vector, { lexical: 1, vector: 0.5 })).toEqual([1, 2, 3]);
    expect(order(lexical, vector, { lexical: 0.5, vector: 1 })).toEqual([3, 2, 1]);
    // Lexical mode weighs the vectors 0: what only they found is no result.
    expect(order(lexical, vector, { lexical: 1, vector: 0 })).toEqual([1, 2]);
    // Each score is proportional to its fused evidence (the file stages only scale it, one file each here).
    const [first, second, third] = rank(lexical, vector, { lexical: 1, vector: 0.5 });
    expect(second!.score / first!.score).toBeCloseTo(0.6 + 0.5 * 0.5, 9);
    expect(third!.score / first!.score).toBeCloseTo(0.5, 9);
  });

  it('records each list rank and the similarity, and a hit found by one list only has that list alone', () => {
    const hits = rank(
      [{ id: 1, score: 4 }],
      [
        { id: 2, score: 0.6 },
        { id: 1, score: 0.3 },
      ],
      { lexical: 1, vector: 0.5 },
    );
    const signals = new Map(hits.map((hit) => [hit.row.id, hit.signals]));
    expect(signals.get(1)).toEqual({ lexical: 1, vector: 2, similarity: 0.3 });
    expect(signals.get(2)).toEqual({ vector: 1, similarity: 0.6 });
  });

  it('scales each list by its best score, and keeps only the order of a list with no positive score', () => {
    expect(
      relativeScores([
        { id: 1, score: 4 },
        { id: 2, score: 1 },
        { id: 3, score: -1 },
      ]),
    ).toEqual([1, 0.25, 0]);
    expect(
      relativeScores([
        { id: 1, score: -0.1 },
        { id: 2, score: -0.3 },
      ]),
    ).toEqual([1, 0.5]);
    expect(relativeScores([])).toEqual([]);
  });

  it("spreads a trained model's crowded cosines between the list's weakest and its best", () => {
    const crowded = [
      { id: 1, score: 0.62 },
      { id: 2, score: 0.57 },
      { id: 3, score: 0.52 },
    ];
    expect(spreadScores(crowded).map((x) => Number(x.toFixed(9)))).toEqual([1, 0.5, 0]);
    // Over the best alone the three are 1, 0.92 and 0.84: the vector half would add nearly the same to each.
    expect(relativeScores(crowded).map((x) => Number(x.toFixed(2)))).toEqual([1, 0.92, 0.84]);
    // A list of one score, or of equal ones, says only its order.
    expect(spreadScores([{ id: 1, score: 0.5 }])).toEqual([1]);
    expect(spreadScores([])).toEqual([]);
  });

  it('with crowded cosines (a model embedder), the vector list can overturn a close lexical race it could not before', () => {
    const lexical = [
      { id: 1, score: 10 },
      { id: 2, score: 8.5 },
      { id: 3, score: 8 },
    ];
    // The model prefers 2, by a margin that is large for its cosines and small over the best.
    const vector = [
      { id: 2, score: 0.6 },
      { id: 1, score: 0.5 },
      { id: 3, score: 0.49 },
    ];
    const weights = DEFAULT_FUSION_WEIGHTS.prose;
    expect(order(lexical, vector, weights)).toEqual([1, 2, 3]);
    expect(rank(lexical, vector, weights, true).map((hit) => hit.row.id)).toEqual([2, 1, 3]);
  });
});
