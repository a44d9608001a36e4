/**
 * The built CLIs against vectors that cannot be indexed: a server that
 * answers 70,000 dimensions stops oc-vector-index with one clear message and
 * leaves no index recorded with it; an index.db that an older version left
 * recording such an embedder still answers oc-vector-search --mode lexical,
 * a hybrid search warns and answers lexically, and the next
 * oc-vector-index repairs it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import { fakeEmbeddingServer } from '../helpers/fake-ollama.js';
import { fakeOpenAIEmbeddingServer } from '../helpers/fake-openai.js';
import { cleanedUpAfterEach } from '../helpers/repo.js';
import { runCli } from '../helpers/run-node.js';
import { searchRepo } from '../helpers/search-repo.js';

const owned = cleanedUpAfterEach();

describe('oc-vector-index through a server that answers 70,000 dimensions', () => {
  it.each(['ollama', 'openai'] as const)('%s API: exits 1 with the message, and records no embedder', async (api) => {
    const repo = (owned.repo = searchRepo());
    let url: string;
    let args: string[];
    if (api === 'ollama') {
      const fake = (owned.fake = await fakeEmbeddingServer(32, { misbehave: () => 'oversized' }));
      url = fake.url;
      args = ['--embedder', 'ollama', '--ollama-host', url, '--embedding-model', 'fake-embed'];
    } else {
      const fake = (owned.fake = await fakeOpenAIEmbeddingServer(32, { misbehave: () => 'oversized' }));
      url = fake.url;
      args = ['--embedder', 'openai', '--openai-base-url', url, '--embedding-model', 'fake-embed'];
    }
    const run = await runCli('oc-vector-index', ['--no-llm', ...args, '.'], {
      cwd: repo.root,
      env: { OCVECTOR_EMBEDDER: '' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `the embedding server at ${url} (${api}:fake-embed) answered vectors of 70000 dimensions; FAISS indexes at most 65536: ` +
        'nothing of this answer is used: check that the server serves an embedding model under that name and works',
    );
    expect(run.stderr).toContain('--embedder builtin');
    expect(run.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace

    const indexDir = join(repo.root, '.ocvector');
    if (existsSync(join(indexDir, 'index.db'))) {
      const store = IndexStore.open(indexDir, { readonly: true });
      try {
        expect(store.embedder).toBeUndefined();
      } finally {
        store.close();
      }
    }
    const search = await runCli('oc-vector-search', ['hash a password', '--mode', 'lexical'], { cwd: repo.root });
    expect(search.code).not.toBe(0);
    expect(search.stderr).toMatch(/run oc-vector-index/);
  });
});

describe('oc-vector-search on an index.db that records a 70,000-dimension embedder', () => {
  it('answers --mode lexical, warns and answers lexically in hybrid, refuses --mode vector; a new run repairs it', async () => {
    const repo = (owned.repo = searchRepo());
    expect((await runCli('oc-vector-index', ['--no-llm', '.'], { cwd: repo.root })).code).toBe(0);
    const store = IndexStore.open(join(repo.root, '.ocvector'));
    const { id } = store.embedder!;
    store.meta.embedder = { id, dimension: 70_000 };
    store.close();

    const lexical = await runCli('oc-vector-search', ['hash a password with a salt', '--mode', 'lexical', '--json'], {
      cwd: repo.root,
    });
    expect(lexical.code, lexical.stderr).toBe(0);
    expect(lexical.stderr).toBe('');
    const answer = JSON.parse(lexical.stdout) as { mode: string; results: { name: string }[] };
    expect(answer.mode).toBe('lexical');
    expect(answer.results[0]?.name).toBe('hashPassword');

    const hybrid = await runCli('oc-vector-search', ['hash a password with a salt'], { cwd: repo.root });
    expect(hybrid.code, hybrid.stderr).toBe(0);
    expect(hybrid.stderr).toMatch(
      /^warning: the index records 70000 dimensions for its embedder builtin:v\d+:512, which FAISS cannot index \(1 to 65536\).*oc-vector-index --rebuild.*answered by lexical search/,
    );
    expect(hybrid.stdout).toContain('hashPassword');

    const vector = await runCli('oc-vector-search', ['hash a password', '--mode', 'vector'], { cwd: repo.root });
    expect(vector.code).not.toBe(0);
    expect(vector.stderr).toMatch(/vector search is unavailable: the index records 70000 dimensions/);
    expect(vector.stderr).not.toMatch(/\n\s+at /);

    expect((await runCli('oc-vector-index', ['--no-llm', '.'], { cwd: repo.root })).code).toBe(0);
    const repaired = await runCli('oc-vector-search', ['hash a password with a salt', '--json'], { cwd: repo.root });
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.stderr).toBe('');
    expect(JSON.parse(repaired.stdout)).toMatchObject({ mode: 'hybrid' });
  });
});
