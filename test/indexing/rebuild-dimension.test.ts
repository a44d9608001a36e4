/**
 * A rebuild of one repository among others keeps the store's embedder: the same embedder
 * answering with another dimension (a model server that changed its model under the same name)
 * is refused before anything is written, in both stores alike (one prepareEmbedder,
 * indexing/update-index.ts). The embedded store used to check the embedder's id only.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../src/indexing/indexer.js';
import { storeStatus } from '../../src/indexing/status.js';
import { openStore, type PostgresChoice } from '../../src/store/open.js';
import { FakeOllama } from '../helpers/fake-ollama.js';
import { cleanedUpAfterEach, tempRepo } from '../helpers/repo.js';
import { startPostgres, type Postgres } from '../support/postgres.js';

const owned = cleanedUpAfterEach();
let postgres: Postgres;
let fake: FakeOllama;
/** The dimension the fake model answers with now. */
let dimension = 4;

beforeAll(async () => {
  postgres = await startPostgres();
  fake = await FakeOllama.start({
    embed: (request) => ({
      body: {
        embeddings: (request.input as string[]).map((_, i) =>
          Array.from({ length: dimension }, (_, j) => (i + j + 1) / dimension),
        ),
      },
    }),
  });
}, 60_000);

afterAll(async () => {
  await fake?.close();
  await postgres?.stop();
});

describe.each(['embedded', 'postgres'] as const)('a rebuild among other repositories, in the %s store', (kind) => {
  it('refuses the same embedder with another dimension, and leaves the index as it was', async () => {
    dimension = 4;
    const first = (owned.repo = tempRepo({ 'a.ts': 'export function alpha(): number {\n  return 1;\n}\n' }));
    const second = tempRepo({ 'b.ts': 'export function beta(): number {\n  return 2;\n}\n' });
    const where: { indexDir: string; store?: PostgresChoice } = {
      indexDir: join(first.root, 'index'),
      ...(kind === 'postgres' ? { store: { url: postgres.url, schema: 'rebuild_dimension' } } : {}),
    };
    const indexer = (path: string, repo: string) =>
      new Indexer({ path, repo, embedder: { host: fake.url, model: 'fake-embed' }, llm: false, ...where });
    try {
      await indexer(first.root, 'first').run();
      await indexer(second.root, 'second').run();

      dimension = 6;
      const refused = await indexer(first.root, 'first')
        .run({ rebuild: true })
        .catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'EMBEDDER_MISMATCH', message: /other repositories \(second\)/ });
      const status = await storeStatus(await openStore(where.store, where), { checkFiles: false });
      expect(status.embedder).toMatchObject({ dimension: 4 });
      expect(status.repositories.map((repository) => [repository.name, repository.elements])).toEqual([
        ['first', 1],
        ['second', 1],
      ]);
    } finally {
      second.cleanup();
    }
  });
});
