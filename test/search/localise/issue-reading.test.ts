/**
 * An issue read for its structure (search/localise/issue-reading.ts): the
 * frames of its tracebacks in each language's form, the paths and dotted
 * names it writes, the names in its code and backticks weighed above those
 * of its prose, its error messages; and all of it, however long the text.
 */
import { describe, expect, it } from 'vitest';
import {
  NAME_IN_PROSE,
  normalizePath,
  readIssue,
  tracebackFrames,
} from '../../../src/search/localise/issue-reading.js';

describe('tracebacks', () => {
  it("reads Python's frames, innermost last, with their functions", () => {
    const text = [
      'Traceback (most recent call last):',
      '  File "/home/u/.venv/lib/python3.11/site-packages/sklearn/base.py", line 12, in fit',
      '    return self._fit(X)',
      '  File "/home/u/.venv/lib/python3.11/site-packages/sklearn/utils/validation.py", line 99, in check_array',
      'ValueError: Input contains NaN, infinity or a value too large',
    ].join('\n');
    expect(tracebackFrames(text)).toEqual([
      { path: '/home/u/.venv/lib/python3.11/site-packages/sklearn/base.py', name: 'fit', depth: 0.5 },
      { path: '/home/u/.venv/lib/python3.11/site-packages/sklearn/utils/validation.py', name: 'check_array', depth: 1 },
    ]);
  });

  it("reads JavaScript's, Java's and a compiler's or a panic's locations", () => {
    // JavaScript writes the innermost frame first.
    expect(tracebackFrames('    at Parser.parse (/app/lib/parser.js:10:5)\n    at main (/app/lib/cli.js:3:1)')).toEqual(
      [
        { path: '/app/lib/parser.js', name: 'parse', depth: 1 },
        { path: '/app/lib/cli.js', name: 'main', depth: 0.5 },
      ],
    );
    expect(
      tracebackFrames(
        '\tat com.fasterxml.jackson.core.json.ReaderBasedJsonParser.nextToken(ReaderBasedJsonParser.java:712)',
      ),
    ).toEqual([{ path: 'com/fasterxml/jackson/core/json/ReaderBasedJsonParser.java', name: 'nextToken', depth: 1 }]);
    expect(tracebackFrames("thread 'main' panicked at 'index out of bounds', src/search/walk.rs:51:9")).toEqual([
      { path: 'src/search/walk.rs', depth: 1 },
    ]);
    expect(tracebackFrames('include/fmt/format.h:1234:5: error: no matching function')).toEqual([
      { path: 'include/fmt/format.h', depth: 1 },
    ]);
  });
});

describe('an issue', () => {
  it('names paths, links into the repository, dotted modules and error messages', () => {
    const issue = readIssue(
      [
        'CountVectorizer raises NotFittedError with a vocabulary',
        'See https://github.com/scikit-learn/scikit-learn/blob/main/sklearn/feature_extraction/text.py#L300 and `sklearn/base.py`.',
        'from sklearn.feature_extraction.text import CountVectorizer',
        "NotFittedError: CountVectorizer - Vocabulary wasn't fitted.",
      ].join('\n'),
    );
    expect(issue.title).toBe('CountVectorizer raises NotFittedError with a vocabulary');
    expect(issue.paths).toEqual(expect.arrayContaining(['sklearn/feature_extraction/text.py', 'sklearn/base.py']));
    expect(issue.dotted).toContain('sklearn.feature_extraction.text');
    expect(issue.errors).toContain("CountVectorizer - Vocabulary wasn't fitted.");
  });

  it('weighs a name in code or backticks above one in prose, and leaves out keywords and short words', () => {
    const issue = readIssue(
      [
        'parse_config fails',
        '',
        'Calling `load_settings` twice breaks.',
        '```python',
        'from app import build_index',
        'x = None',
        '```',
      ].join('\n'),
    );
    expect(issue.names.get('load_settings')).toBe(1);
    expect(issue.names.get('build_index')).toBe(1);
    expect(issue.names.get('parse_config')).toBe(NAME_IN_PROSE);
    expect(issue.names.has('None')).toBe(false);
    expect(issue.names.has('x')).toBe(false);
  });

  it("reads all of a long issue: a traceback after 20,000 characters of prose is read (the element query's limit is 2,000)", () => {
    const prose = 'The output is wrong when the input is long. '.repeat(500);
    const issue = readIssue(`Wrong output\n${prose}\n  File "/x/pkg/core/engine.py", line 3, in run_engine\n`);
    expect(issue.text.length).toBeGreaterThan(20_000);
    expect(issue.frames).toEqual([{ path: '/x/pkg/core/engine.py', name: 'run_engine', depth: 1 }]);
    expect(issue.names.get('run_engine')).toBe(1);
  });

  it('writes paths as the index does', () => {
    expect(normalizePath('.\\src\\a.ts')).toBe('src/a.ts');
    expect(normalizePath('a/src/lib.rs')).toBe('src/lib.rs');
  });
});
