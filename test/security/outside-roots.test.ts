/**
 * An index that arrives with a clone (`<clone>/.ocvector`) reads inside the clone only: a
 * root its database records elsewhere (rewritten to an outside directory, to a sibling
 * through `..`, or to a symbolic link in the clone that leads out) is never read, listed,
 * searched or re-indexed, by a library search or over MCP (relocation.ts, repositories.ts).
 */
import { statSync, symlinkSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { connectInMemory } from '../helpers/mcp-memory.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Searcher } from '../../src/internal.js';
import { indexStatus } from '../../src/indexing/status.js';
import { createCodebaseMcpServer } from '../../src/mcp/server.js';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import { prepared } from '../../src/store/embedded/sqlite.js';
import { indexBuiltin } from '../helpers/index-builtin.js';
import { cleanUp, clone, outsideDirectory, poisonedClone, QUERY, ROOTS, SECRET_FILE } from './outside-roots-fixture.js';

afterEach(cleanUp);

describe.each(ROOTS)('a clone whose index records a root at %s', (_, root) => {
  it('is searched without the outside root: no result, snippet or repository of it', async () => {
    const { indexDir } = await poisonedClone(root);
    const events: unknown[] = [];
    const searcher = await Searcher.open({ indexDir, onEvent: (event) => events.push(event) });
    try {
      expect(searcher.repositories().map((repository) => repository.name)).not.toContain('etc');
      for (const mode of ['hybrid', 'lexical', 'vector'] as const) {
        const response = await searcher.search(QUERY, { k: 50, mode });
        expect(JSON.stringify(response)).not.toContain('OUTSIDE-MARKER');
        expect(response.results.map((result) => result.path)).not.toContain(SECRET_FILE);
      }
      const references = await searcher.references('authenticate');
      expect(JSON.stringify(references)).not.toContain('OUTSIDE-MARKER');
      expect(JSON.stringify(references)).not.toContain(SECRET_FILE);
      await expect(searcher.search(QUERY, { repos: ['etc'] })).rejects.toMatchObject({ code: 'UNKNOWN_REPO' });
    } finally {
      await searcher.close();
    }
    // One note says which root is left out, and why.
    expect(events).toContainEqual({
      type: 'vector-index',
      event: expect.objectContaining({ type: 'repository-outside', repository: 'etc' }),
    });
  });

  it('lists nothing of it in its status, and reindexes nothing there, over MCP', async () => {
    const { repo, indexDir } = await poisonedClone(root);
    const status = await indexStatus(indexDir);
    expect(status.repositories.map((repository) => repository.name)).toEqual([basename(repo.root)]);
    expect(JSON.stringify(status)).not.toContain(SECRET_FILE);

    const mcp = createCodebaseMcpServer({ root: repo.root, indexDir, indexer: { llm: false, embedder: 'builtin' } });
    const client = await connectInMemory(mcp.mcp);
    try {
      const shown = await client.callTool({ name: 'index_status', arguments: {} });
      expect(shown.isError).toBeFalsy();
      expect(JSON.stringify(shown)).not.toContain(SECRET_FILE);
      expect(JSON.stringify(shown)).not.toContain('"etc"');

      const found = await client.callTool({ name: 'codebase_search', arguments: { query: QUERY, k: 20 } });
      expect(JSON.stringify(found)).not.toContain('OUTSIDE-MARKER');

      const reindex = await client.callTool({ name: 'reindex', arguments: { repo: 'etc' } });
      expect(reindex.isError).toBe(true);
      expect((reindex.structuredContent as { error?: string }).error).toMatch(/no repository named "etc"/);
    } finally {
      await client.close();
      await mcp.close();
    }
  });
});

describe('a clone', () => {
  it('shows no snippet of a file whose symbolic link leads out of it', async () => {
    const repo = clone();
    const outside = outsideDirectory();
    symlinkSync(join(outside, SECRET_FILE), join(repo.root, 'auth.ts'));
    await indexBuiltin(repo.root);
    const searcher = await Searcher.open({ indexDir: join(repo.root, '.ocvector') });
    try {
      const response = await searcher.search(QUERY, { k: 50 });
      expect(JSON.stringify(response)).not.toContain('OUTSIDE-MARKER');
    } finally {
      await searcher.close();
    }
  });

  it('looks at no file its index records by a path leading out of it (..)', async () => {
    const repo = clone();
    const indexDir = join(repo.root, '.ocvector');
    await indexBuiltin(repo.root);
    const secret = join(outsideDirectory(), SECRET_FILE);
    const escaping = relative(repo.root, secret);
    const { size, mtimeMs } = statSync(secret);
    const store = IndexStore.open(indexDir);
    try {
      const db = store.database;
      const [victim] = prepared<[], { id: number }>(db, 'SELECT id FROM files ORDER BY id LIMIT 1').all();
      prepared(db, 'UPDATE files SET path = ?, size = ?, mtime_ms = ? WHERE id = ?').run(
        escaping,
        size,
        mtimeMs,
        victim!.id,
      );
    } finally {
      store.close();
    }
    // Its status calls it deleted: what lies at that path outside is never looked at.
    expect((await indexStatus(indexDir)).stale.deleted).toEqual([escaping]);
    const searcher = await Searcher.open({ indexDir });
    try {
      expect(JSON.stringify(await searcher.search(QUERY, { k: 50 }))).not.toContain('OUTSIDE-MARKER');
    } finally {
      await searcher.close();
    }
  });

  it('refuses to index a directory outside it into its own index', async () => {
    const repo = clone();
    const indexDir = join(repo.root, '.ocvector');
    await indexBuiltin(repo.root);
    await expect(indexBuiltin(outsideDirectory(), { indexDir, repo: 'etc' })).rejects.toMatchObject({
      code: 'ROOT_OUTSIDE',
      message: expect.stringContaining('--db <dir>'),
    });
  });

  it('rebuilt, forgets a root recorded outside it', async () => {
    const { indexDir } = await poisonedClone(() => outsideDirectory());
    await indexBuiltin(join(indexDir, '..'), { rebuild: true });
    const store = IndexStore.open(indexDir, { readonly: true });
    try {
      expect(store.repositories.outside()).toEqual([]);
      expect(store.repositories.ids()).toHaveLength(1);
    } finally {
      store.close();
    }
  });
});
