/**
 * SearcherPool answers searchFiles (the files an issue points at) as a
 * Searcher on the calling thread does, with the same errors; and the agent
 * tool answers it on worker threads too.
 */
import { describe, expect, it } from 'vitest';
import { CodebaseSearchTool, FindFilesTool } from '../../src/index.js';
import { SearchError } from '../../src/search/errors.js';
import { SearcherPool } from '../../src/search/pool/searcher-pool.js';
import { indexedSearchRepo } from '../helpers/search-repo.js';

const { repo, searcher } = indexedSearchRepo();

const ISSUE = `Login fails for every user after the upgrade

verifyPassword returns false for a password that was hashed a minute ago:

    at verifyPassword (/srv/app/src/auth/passwords.ts:14:3)
    at login (/srv/app/src/auth/session.ts:20:7)

The salt is split off \`stored\` with ':' in \`verifyPassword\`; maybe \`hashPassword\` writes it otherwise.`;

describe('SearcherPool.searchFiles', () => {
  it('answers as a Searcher does, and fails as it fails', async () => {
    const alone = searcher();
    const pool = await SearcherPool.open({ indexDir: alone.indexDir, workers: 1 });
    try {
      const { timings: _pooled, ...pooled } = await pool.searchFiles(ISSUE, { k: 5 });
      const { timings: _alone, ...expected } = await alone.searchFiles(ISSUE, { k: 5 });
      expect(pooled.files[0]).toMatchObject({ path: 'src/auth/passwords.ts' });
      expect(pooled).toEqual(expected);
      const empty = await pool.searchFiles('   ').catch((error: unknown) => error);
      expect(empty).toBeInstanceOf(SearchError);
      expect((empty as SearchError).code).toBe('BAD_QUERY');
    } finally {
      await pool.close();
    }
  });

  it('serves find_files_to_change from worker threads', async () => {
    const search = new CodebaseSearchTool({ cwd: repo.root, searchWorkers: 1 });
    try {
      const output = await new FindFilesTool(search).execute({ issue: ISSUE, limit: 3 });
      expect(output.error).toBeUndefined();
      expect(output.files[0]).toMatchObject({ path: 'src/auth/passwords.ts' });
      expect(output.files[0]!.evidence.map((evidence) => evidence.kind)).toContain('frame');
    } finally {
      await search.close();
    }
  });
});
