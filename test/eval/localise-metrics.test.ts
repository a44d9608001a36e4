/**
 * The localisation scores on hand-made rankings (the rules of
 * ../shared/localisation-dev/README.md), the set's split and file classes.
 * Nothing here reads the set or the mirrors.
 */
import { describe, expect, it } from 'vitest';
import {
  distinctPaths,
  failedInstance,
  groupBy,
  scoreInstance,
  summariseScores,
} from '../../eval/lib/localise-metrics.js';
import { isCodeFile, isTestOrBuild, splitOf } from '../../eval/lib/localise-set.js';

describe('scoreInstance', () => {
  it('ranks a single gold file among distinct paths, the first occurrence counting', () => {
    const score = scoreInstance(['a.py', 'a.py', 'b.py', 'a.py', 'c.py'], ['c.py']);
    expect(score.ranks).toEqual([3]);
    expect(score.acc).toEqual({ 1: 0, 3: 1, 5: 1, 10: 1 });
    expect(score.recall).toEqual({ 5: 1, 10: 1 });
    expect(score.reciprocalRank).toBeCloseTo(1 / 3);
  });

  it('gives Acc@k only when every gold file is in the first k, and Recall@k the share', () => {
    const ranking = ['x', 'g1', 'y', 'z', 'w', 'v', 'g2', 'u'];
    const score = scoreInstance(ranking, ['g1', 'g2']);
    expect(score.ranks).toEqual([2, 7]);
    expect(score.acc).toEqual({ 1: 0, 3: 0, 5: 0, 10: 1 });
    expect(score.recall).toEqual({ 5: 0.5, 10: 1 });
    expect(score.reciprocalRank).toBe(0.5);
  });

  it('scores 0 at k when the gold set is larger than k', () => {
    const gold = ['a', 'b', 'c', 'd'];
    const score = scoreInstance(gold, gold);
    expect(score.acc).toEqual({ 1: 0, 3: 0, 5: 1, 10: 1 });
    expect(score.reciprocalRank).toBe(1);
  });

  it('counts the reciprocal rank past 10, and 0 when no gold file is listed', () => {
    const long = Array.from({ length: 30 }, (_, i) => `f${i}`);
    expect(scoreInstance(long, ['f19']).reciprocalRank).toBeCloseTo(1 / 20);
    expect(scoreInstance(long, ['f19']).acc[10]).toBe(0);
    expect(scoreInstance(long, ['nowhere']).reciprocalRank).toBe(0);
    expect(scoreInstance(long, ['nowhere']).ranks).toEqual([0]);
  });

  it('gives no credit to a basename or a suffix', () => {
    const score = scoreInstance(['lib/src/util.py', 'util.py'], ['src/util.py']);
    expect(score.ranks).toEqual([0]);
    expect(score.reciprocalRank).toBe(0);
  });

  it('scores an empty or failed ranking 0, and refuses an empty gold set', () => {
    expect(failedInstance(['a'])).toEqual(scoreInstance([], ['a']));
    expect(failedInstance(['a']).acc).toEqual({ 1: 0, 3: 0, 5: 0, 10: 0 });
    expect(() => scoreInstance(['a'], [])).toThrow(RangeError);
  });
});

describe('summariseScores', () => {
  it('averages over instances, failures in the denominator', () => {
    const scores = [scoreInstance(['a', 'b'], ['a']), scoreInstance(['a', 'b'], ['b']), failedInstance(['c'])];
    const summary = summariseScores(scores);
    expect(summary.instances).toBe(3);
    expect(summary.acc[1]).toBeCloseTo(1 / 3);
    expect(summary.acc[3]).toBeCloseTo(2 / 3);
    expect(summary.mrr).toBeCloseTo((1 + 0.5 + 0) / 3);
    expect(summary.recall[5]).toBeCloseTo(2 / 3);
  });

  it('gives zeros for an empty group', () => {
    expect(summariseScores([])).toEqual({
      instances: 0,
      acc: { 1: 0, 3: 0, 5: 0, 10: 0 },
      recall: { 5: 0, 10: 0 },
      mrr: 0,
    });
  });
});

describe('helpers', () => {
  it('dedupes a ranking in first-seen order', () => {
    expect(distinctPaths(['b', 'a', 'b', 'c', 'a'])).toEqual(['b', 'a', 'c']);
  });

  it('groups items under each of their keys', () => {
    const groups = groupBy([1, 2, 3, 4], (n) => (n % 2 === 0 ? ['even', 'all'] : ['all']));
    expect([...groups]).toEqual([
      ['all', [1, 2, 3, 4]],
      ['even', [2, 4]],
    ]);
  });

  it('splits instances by their id alone, both halves used', () => {
    expect(splitOf('django__django-11066')).toBe(splitOf('django__django-11066'));
    const ids = Array.from({ length: 200 }, (_, i) => `owner__repo-${i}`);
    const dev = ids.filter((id) => splitOf(id) === 'dev').length;
    expect(dev).toBeGreaterThan(60);
    expect(dev).toBeLessThan(140);
  });

  it("knows the set's code extensions, its tests and build folders", () => {
    expect(isCodeFile('src/a.py')).toBe(true);
    expect(isCodeFile('include/fmt/core.h')).toBe(true);
    expect(isCodeFile('src/jv.re2c')).toBe(true);
    expect(isCodeFile('CHANGELOG.md')).toBe(false);
    expect(isCodeFile('Makefile')).toBe(false);
    expect(isCodeFile('.py')).toBe(false);
    for (const path of [
      'tests/test_api.py',
      'pkg/test_x.py',
      'src/foo_test.go',
      'lib/__tests__/a.js',
      'src/a.spec.ts',
      'src/main/java/FooTest.java',
      'src/main/java/FooIT.java',
      'conftest.py',
      'build/lib/a.py',
      'target/debug/x.rs',
    ])
      expect(isTestOrBuild(path), path).toBe(true);
    for (const path of ['src/attest.py', 'sphinx/builders/html.py', 'src/testing_utils.rs', 'latest/a.py'])
      expect(isTestOrBuild(path), path).toBe(false);
  });
});
