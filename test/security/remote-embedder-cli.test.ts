/**
 * Where queries, code and keys are sent (issue 54, case 1), through the
 * built CLIs: an index that records a model server (a local fake that
 * counts what it is sent) is searched without a request to it unless the
 * user names it (--openai-base-url, OCVECTOR_OPENAI_BASE_URL, --ollama-host,
 * OLLAMA_HOST), and an index run on it without one is refused (exit 2),
 * naming the flag. OCVECTOR_API_KEY goes only to the server named.
 */
import { describe, expect, it } from 'vitest';
import { Indexer } from '../../src/index.js';
import { fakeEmbeddingServer } from '../helpers/fake-ollama.js';
import { fakeOpenAIEmbeddingServer } from '../helpers/fake-openai.js';
import { cleanedUpAfterEach } from '../helpers/repo.js';
import { runCli } from '../helpers/run-node.js';
import { searchRepo } from '../helpers/search-repo.js';

const QUERY = 'checksum of a file';
/** The user's key and no embedder chosen: only the flags (and the index) could say where to go. */
const KEYED = { OCVECTOR_EMBEDDER: '', OCVECTOR_API_KEY: 'sk-users-own' };

const owned = cleanedUpAfterEach();

describe('oc-vector-search and oc-vector-index on an index that records an OpenAI-compatible server', () => {
  it('send it nothing unless the user names it: search answers lexically, index refuses, each naming the flag', async () => {
    const repo = (owned.repo = searchRepo());
    const server = (owned.fake = await fakeOpenAIEmbeddingServer(32));
    const embedder = { kind: 'openai', baseUrl: server.url, model: 'fake-embed' } as const;
    await new Indexer({ path: repo.root, embedder, llm: false }).run();
    const requests = server.headers.length;

    const search = await runCli('oc-vector-search', [QUERY, '--json'], { cwd: repo.root, env: KEYED });
    expect(search.code, search.stderr).toBe(0);
    const response = JSON.parse(search.stdout);
    expect(response.mode).toBe('lexical');
    expect(response.results[0].name).toBe('file_checksum');
    expect(response.fallback.reason).toMatch(/--openai-base-url/);

    repo.write('src/forecast.ts', 'export function privateQuarterlyForecast() { return 1; }\n');
    const index = await runCli('oc-vector-index', ['--no-llm', '.'], { cwd: repo.root, env: KEYED });
    expect(index.code).toBe(2);
    expect(index.stderr).toMatch(/--openai-base-url/);
    expect(server.headers.length).toBe(requests);

    // Named by the environment: the vectors are used, and the key goes there.
    const named = await runCli('oc-vector-search', [QUERY, '--json'], {
      cwd: repo.root,
      env: { ...KEYED, OCVECTOR_OPENAI_BASE_URL: server.url },
    });
    expect(named.code, named.stderr).toBe(0);
    expect(JSON.parse(named.stdout)).toMatchObject({ mode: 'hybrid' });
    expect(server.embeddingRequests.at(-1)!.input).toEqual([QUERY]);
    expect(server.headers.at(-1)!.authorization).toBe('Bearer sk-users-own');
  });
});

describe('oc-vector-search on an index that records an Ollama server', () => {
  it('asks the host the user names (--ollama-host, OLLAMA_HOST), never the recorded one', async () => {
    const repo = (owned.repo = searchRepo());
    const server = (owned.fake = await fakeEmbeddingServer(32));
    await new Indexer({ path: repo.root, embedder: { host: server.url, model: 'fake-embed' }, llm: false }).run();
    const embeds = server.embeds.length;

    // No OLLAMA_HOST, no flag: the local default is the user's own machine; the recorded host is not asked.
    const search = await runCli('oc-vector-search', [QUERY, '--json'], {
      cwd: repo.root,
      env: { ...KEYED, OLLAMA_HOST: '' },
    });
    expect(search.code, search.stderr).toBe(0);
    expect(JSON.parse(search.stdout).results[0].name).toBe('file_checksum');
    expect(server.embeds.length).toBe(embeds);

    const named = await runCli('oc-vector-search', [QUERY, '--json', '--ollama-host', server.url], {
      cwd: repo.root,
      env: KEYED,
    });
    expect(JSON.parse(named.stdout)).toMatchObject({ mode: 'hybrid' });
    const fromEnvironment = await runCli('oc-vector-search', [QUERY, '--json'], {
      cwd: repo.root,
      env: { ...KEYED, OLLAMA_HOST: server.url },
    });
    expect(JSON.parse(fromEnvironment.stdout)).toMatchObject({ mode: 'hybrid' });
    expect(server.embeds.length).toBe(embeds + 2);
  });
});
