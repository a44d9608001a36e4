import { describe, expect, it } from 'vitest';
import { fileScores } from '../../../src/search/ranking/file-evidence.js';

describe('BM25 over whole files', () => {
  it('a file whose elements hold every term of the question outscores one that holds a single term many times', () => {
    // "insert update delete transaction": repo.ex (file 1) holds each term in one or two elements;
    // multi.ex (file 2) holds `insert` in many; schema.ex (file 3) holds `update` once.
    const scores = fileScores({
      perTerm: [
        new Map([
          [1, 2],
          [2, 9],
        ]),
        new Map([
          [1, 1],
          [3, 1],
        ]),
        new Map([[1, 1]]),
        new Map([[1, 2]]),
      ],
      sizes: new Map([
        [1, 40],
        [2, 40],
        [3, 10],
      ]),
      files: 200,
      averageSize: 20,
    });
    expect(scores.get(1)).toBe(1);
    expect(scores.get(2)!).toBeLessThan(0.5);
    expect(scores.get(3)!).toBeLessThan(scores.get(1)!);
  });

  it('a rare term weighs more than a common one, and a long file needs more occurrences than a short one', () => {
    const scores = fileScores({
      perTerm: [new Map([[1, 1]]), new Map([[2, 1], ...Array.from({ length: 150 }, (_, i) => [100 + i, 1] as const)])],
      sizes: new Map([
        [1, 10],
        [2, 10],
      ]),
      files: 200,
      averageSize: 10,
    });
    expect(scores.get(1)).toBe(1);
    expect(scores.get(2)!).toBeLessThan(0.3);

    const byLength = fileScores({
      perTerm: [
        new Map([
          [1, 1],
          [2, 1],
        ]),
      ],
      sizes: new Map([
        [1, 5],
        [2, 50],
      ]),
      files: 100,
      averageSize: 10,
    });
    expect(byLength.get(2)!).toBeLessThan(byLength.get(1)!);
  });

  it('a file shorter than half the mean counts as half the mean: a one-element page does not outscore the module', () => {
    // "improve connection error reporting": an issue template (file 1, one element) holds all three
    // words once; the module (file 2, the mean's length) holds them in 2, 6 and 2 of its 20
    // elements. Counted at its own length, the template would score about 6.2 to the module's 4.6.
    const counts = {
      perTerm: [
        new Map([
          [1, 1],
          [2, 2],
        ]),
        new Map([
          [1, 1],
          [2, 6],
        ]),
        new Map([
          [1, 1],
          [2, 2],
        ]),
      ],
      sizes: new Map([
        [1, 1],
        [2, 20],
        [3, 4],
      ]),
      files: 200,
      averageSize: 20,
    };
    const scores = fileScores(counts);
    expect(scores.get(2)).toBe(1);
    expect(scores.get(1)!).toBeLessThan(1);
    // Below the floor, length no longer matters: one element or a fifth of the mean score alike.
    const quarter = fileScores({
      ...counts,
      perTerm: counts.perTerm.map((m) => new Map([...m].map(([f, n]) => [f === 1 ? 3 : f, n]))),
    });
    expect(quarter.get(3)).toBeCloseTo(scores.get(1)!, 10);
  });

  it('nothing matched gives no scores, and an empty index does not divide by zero', () => {
    expect(fileScores({ perTerm: [new Map()], sizes: new Map(), files: 0, averageSize: 0 }).size).toBe(0);
    const scores = fileScores({ perTerm: [new Map([[1, 1]])], sizes: new Map(), files: 1, averageSize: 0 });
    expect(scores.get(1)).toBe(1);
  });
});
