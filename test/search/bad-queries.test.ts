/**
 * Queries a person or a model may send: each is answered, or refused with
 * a SearchError that names the problem; none reaches SQLite as syntax.
 */
import { describe, expect, it } from 'vitest';
import { SearchError } from '../../src/index.js';
import { indexedSearchRepo } from '../helpers/search-repo.js';

describe('bad queries', () => {
  const { searcher } = indexedSearchRepo();

  const modes = ['hybrid', 'lexical', 'vector'] as const;

  it('refuses a query of 10,000 characters, saying how long it may be', async () => {
    for (const mode of modes)
      await expect(searcher().search('words '.repeat(2_000).slice(0, 10_000), { mode })).rejects.toThrow(
        /10000 characters long; at most 2000/,
      );
  });

  it.each(['!!! ??? ...', '*', '::', '"""'])(
    'refuses %j: punctuation alone has no words to search for',
    async (query) => {
      const error = await searcher()
        .search(query)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SearchError);
      expect((error as SearchError).code).toBe('BAD_QUERY');
      expect((error as Error).message).toMatch(/no words to search for/);
    },
  );

  it('answers a query of stop words alone', async () => {
    for (const mode of modes) {
      const response = await searcher().search('the of and a', { mode });
      expect(response.results.length).toBeGreaterThan(0);
    }
  });

  it('answers a query in another script, lexically with nothing rather than an error', async () => {
    expect((await searcher().search('検索 エンジン', { mode: 'lexical' })).results).toEqual([]);
    expect((await searcher().search('検索 エンジン', { mode: 'hybrid' })).mode).toBe('hybrid');
  });

  it.each([
    '"unbalanced quote',
    'NEAR(password salt)',
    'hash*',
    '-password',
    '^session',
    'hash AND OR NOT salt',
    "'; DROP TABLE elements; --",
    'col:value',
    '((((hash',
  ])('reads FTS5 syntax in %j as words, never as syntax', async (query) => {
    for (const mode of modes) {
      const response = await searcher().search(query, { mode });
      expect(Array.isArray(response.results)).toBe(true);
    }
  });

  it('still finds what the words of such a query name', async () => {
    const response = await searcher().search('NEAR(hash password)', { mode: 'lexical', k: 3 });
    expect(response.results.map((r) => r.name)).toContain('hashPassword');
  });
});
