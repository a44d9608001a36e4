/**
 * Where queries, code and keys are sent (issue 54, case 1): only to a server
 * the user named. A real index built against a model server records the
 * embedder's id and the server's URL, as an index committed to a
 * repository would; here that server is a local fake that counts what it
 * is sent. Searching or indexing that index without naming a server sends
 * it nothing (the library, the agent tool and the MCP server alike): an
 * OpenAI-compatible model is answered lexically, or refused, with the
 * option to give; naming the server uses the vectors again.
 */
import { connectInMemory } from '../helpers/mcp-memory.js';
import { describe, expect, it } from 'vitest';
import { EmbedderError, Indexer, Searcher } from '../../src/index.js';
import { createCodebaseMcpServer } from '../../src/mcp/server.js';
import { type FakeOllama, fakeEmbeddingServer } from '../helpers/fake-ollama.js';
import { type FakeOpenAI, fakeOpenAIEmbeddingServer } from '../helpers/fake-openai.js';
import { cleanedUpAfterEach, type TempRepo } from '../helpers/repo.js';
import { searchRepo } from '../helpers/search-repo.js';

const QUERY = 'checksum of a file';
/** What the refusal names: the flag, the variable and the library option. */
const NAMES_THE_OPTION = /--openai-base-url.*OCVECTOR_OPENAI_BASE_URL.*embedderOptions\.openai\.baseUrl/;
/** Code a user adds to the clone after it arrived: an index run must not send it anywhere on the index's word. */
const NEW_CODE = 'export function privateQuarterlyForecast() { return "do not send me"; }\n';

const owned = cleanedUpAfterEach();

/** The fixture indexed through a fake OpenAI-compatible server: the index records `openai:fake-embed` and its URL. */
async function indexRecordingOpenAI(): Promise<{ repo: TempRepo; indexDir: string; server: FakeOpenAI }> {
  const repo = (owned.repo = searchRepo());
  const server = (owned.fake = await fakeOpenAIEmbeddingServer(32));
  const embedder = { kind: 'openai', baseUrl: server.url, model: 'fake-embed' } as const;
  const indexer = new Indexer({ path: repo.root, embedder, llm: false });
  await indexer.run();
  return { repo, indexDir: indexer.indexDir, server };
}

/** The fixture indexed through a fake Ollama server: the index records `ollama:fake-embed` and its URL. */
async function indexRecordingOllama(): Promise<{ repo: TempRepo; indexDir: string; server: FakeOllama }> {
  const repo = (owned.repo = searchRepo());
  const server = (owned.fake = await fakeEmbeddingServer(32));
  const indexer = new Indexer({ path: repo.root, embedder: { host: server.url, model: 'fake-embed' }, llm: false });
  await indexer.run();
  return { repo, indexDir: indexer.indexDir, server };
}

describe('an index that records an OpenAI-compatible server', () => {
  it('is searched lexically when no base URL is given (the server gets no query and no key, the answer names the option), with its vectors at the one named', async () => {
    const { indexDir, server } = await indexRecordingOpenAI();
    const requests = server.headers.length;
    const fallbacks: string[] = [];
    const searcher = await Searcher.open({
      indexDir,
      embedderOptions: { openai: { apiKey: 'sk-users-own' } },
      onEvent: (event) => event.type === 'fallback' && fallbacks.push(event.reason),
    });
    try {
      const response = await searcher.search(QUERY, { k: 3 });
      expect(response.mode).toBe('lexical');
      expect(response.results[0]!.name).toBe('file_checksum');
      expect(response.fallback?.reason).toMatch(NAMES_THE_OPTION);
      // The index's URL is not passed on either: an agent reading the note is not handed it.
      expect(response.fallback?.reason).not.toContain(server.url);
      expect(fallbacks).toHaveLength(1);

      const vector = await searcher.search(QUERY, { mode: 'vector' }).catch((error: unknown) => error);
      expect(vector).toMatchObject({ code: 'EMBEDDER_UNAVAILABLE', message: expect.stringMatching(NAMES_THE_OPTION) });
      expect(await searcher.embedderStatus()).toMatchObject({ available: false });
    } finally {
      searcher.close();
    }
    expect(server.headers.length).toBe(requests);

    // The base URL named by the user: the query's vector comes from there, with the key.
    const named = await Searcher.open({
      indexDir,
      embedderOptions: { openai: { baseUrl: server.url, apiKey: 'sk-users-own' } },
    });
    try {
      const response = await named.search(QUERY, { k: 3 });
      expect(response.mode).toBe('hybrid');
      expect(response.fallback).toBeUndefined();
      expect(response.results[0]!.signals.vector).toBeGreaterThan(0);
    } finally {
      named.close();
    }
    expect(server.embeddingRequests.at(-1)!.input).toEqual([QUERY]);
    expect(server.headers.at(-1)!.authorization).toBe('Bearer sk-users-own');
  });

  it('is not updated without a base URL: the run is refused, naming the option, before the new code is read', async () => {
    const { repo, indexDir, server } = await indexRecordingOpenAI();
    const requests = server.headers.length;
    repo.write('src/forecast.ts', NEW_CODE);
    const run = new Indexer({ path: repo.root, indexDir, llm: false, embedderOptions: { openai: { apiKey: 'k' } } })
      .run()
      .catch((error: unknown) => error);
    const refused = await run;
    expect(refused).toBeInstanceOf(EmbedderError);
    expect(refused).toMatchObject({ code: 'NOT_CONFIGURED', message: expect.stringMatching(NAMES_THE_OPTION) });
    expect(server.headers.length).toBe(requests);

    // Named, the same run embeds the new code there.
    const named = new Indexer({
      path: repo.root,
      indexDir,
      llm: false,
      embedderOptions: { openai: { baseUrl: server.url } },
    });
    const summary = await named.run();
    expect(summary.embedder).toBe('openai:fake-embed');
    expect(server.embeddingRequests.flatMap((request) => [request.input].flat()).join('\n')).toContain(
      'privateQuarterlyForecast',
    );
  });

  it('is answered over MCP without a request to the server, with a note naming the option', async () => {
    const { repo, indexDir, server } = await indexRecordingOpenAI();
    const requests = server.headers.length;
    const mcp = createCodebaseMcpServer({ root: repo.root, indexDir, indexer: { llm: false } });
    const client = await connectInMemory(mcp.mcp);
    try {
      const found = await client.callTool({ name: 'codebase_search', arguments: { query: QUERY, k: 3 } });
      const output = found.structuredContent as { results: { name: string }[]; fallback_used: boolean; note?: string };
      expect(output.fallback_used).toBe(true);
      expect(output.results.map((result) => result.name)).toContain('file_checksum');
      expect(output.note).toMatch(/--openai-base-url/);

      const reindex = await client.callTool({ name: 'reindex', arguments: {} });
      expect(reindex.isError).toBe(true);
      expect(JSON.stringify(reindex.content)).toMatch(/--openai-base-url/);
    } finally {
      await client.close();
      await mcp.close();
    }
    expect(server.headers.length).toBe(requests);
  });
});

describe('an index that records an Ollama server', () => {
  it('is never sent a query or code at the recorded host: without a host given, the local default is asked', async () => {
    const { repo, indexDir, server } = await indexRecordingOllama();
    const embeds = server.embeds.length;
    const searcher = await Searcher.open({ indexDir });
    try {
      const response = await searcher.search(QUERY, { k: 3 });
      expect(response.results.map((result) => result.name)).toContain('file_checksum');
    } finally {
      searcher.close();
    }
    repo.write('src/forecast.ts', NEW_CODE);
    // Whatever the local default makes of it (no server there: the run stops), the recorded host hears nothing.
    await new Indexer({ path: repo.root, indexDir, llm: false }).run().catch(() => undefined);
    expect(server.embeds.length).toBe(embeds);

    // The host named by the user: the query goes there.
    const named = await Searcher.open({ indexDir, embedderOptions: { ollama: { host: server.url } } });
    try {
      expect((await named.search(QUERY, { k: 3 })).mode).toBe('hybrid');
    } finally {
      named.close();
    }
    expect(JSON.stringify(server.embeds.at(-1)!.input)).toContain(QUERY);
  });
});
