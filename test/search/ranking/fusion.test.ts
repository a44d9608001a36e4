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

function rank(lexical: ScoredHit[], vector: ScoredHit[], weights: FusionWeights) {
  return rankCandidates(QUERY, { lexical, vector, definitions: new Set(), namedFiles: new Set() }, rows, {
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
});
