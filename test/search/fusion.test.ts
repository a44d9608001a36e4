import { describe, expect, it } from 'vitest';
import { fuseScores, relativeScores } from '../../src/search/fusion.js';

const ranked = (fused: ReturnType<typeof fuseScores>) =>
  [...fused.values()].sort((a, b) => b.score - a.score).map((c) => c.id);

describe('score fusion', () => {
  it('keeps a clear BM25 winner above a middling hit that the vector list prefers', () => {
    // Element 1 is far ahead lexically; element 2 is a close second lexically and first by vector.
    const lexical = [
      { id: 1, score: 20 },
      { id: 2, score: 9 },
      { id: 3, score: 8 },
    ];
    const vector = [
      { id: 2, score: 0.5 },
      { id: 1, score: 0.45 },
      { id: 3, score: 0.2 },
    ];
    expect(ranked(fuseScores(lexical, vector, { lexical: 1, vector: 0.7 }))).toEqual([1, 2, 3]);
    // Ranks alone could not tell: 1 and 2 swap places between the lists. With a close lexical race, the vector decides.
    const close = [
      { id: 1, score: 10 },
      { id: 2, score: 9.8 },
      { id: 3, score: 8 },
    ];
    expect(ranked(fuseScores(close, vector, { lexical: 1, vector: 0.7 }))).toEqual([2, 1, 3]);
  });

  it('records each list rank and the similarity, and counts a hit found by one list only', () => {
    const fused = fuseScores(
      [{ id: 7, score: 4 }],
      [
        { id: 8, score: 0.6 },
        { id: 7, score: 0.3 },
      ],
      { lexical: 1, vector: 0.5 },
    );
    expect(fused.get(7)).toEqual({ id: 7, score: 1 + 0.5 * 0.5, lexicalRank: 1, vectorRank: 2, vectorScore: 0.3 });
    expect(fused.get(8)).toEqual({ id: 8, score: 0.5, vectorRank: 1, vectorScore: 0.6 });
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
