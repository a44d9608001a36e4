/**
 * The CLIs with an OpenAI-compatible server, end to end: the built commands
 * (dist/) index the labelled fixture with --embedder openai against the fake
 * server, and a search reaches the server named (--openai-base-url), with
 * the key from OCVECTOR_API_KEY; never the one the index recorded.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FakeOpenAI, fakeOpenAIEmbeddingServer } from '../helpers/fake-openai.js';
import type { TempRepo } from '../helpers/repo.js';
import { runCli } from '../helpers/run-node.js';
import { searchRepo } from '../helpers/search-repo.js';

let repo: TempRepo | undefined;
let fake: FakeOpenAI | undefined;
afterEach(async () => {
  repo?.cleanup();
  await fake?.close();
  repo = fake = undefined;
});

/** No embedder chosen by the environment: only the flags (and the index) say which. */
const KEYED = { OCVECTOR_EMBEDDER: '', OCVECTOR_API_KEY: 'sk-e2e' };

function indexWithOpenAI(url: string, extra: string[] = [], env: Record<string, string> = KEYED) {
  const args = ['--no-llm', '--embedder', 'openai', '--openai-base-url', url, '--embedding-model', 'fake-embed'];
  return runCli('oc-vector-index', [...args, ...extra], { cwd: repo!.root, env });
}

describe('oc-vector-index --embedder openai, then oc-vector-search', () => {
  it('indexes through the server, and searches reach the server named, never the one the index recorded', async () => {
    repo = searchRepo();
    fake = await fakeOpenAIEmbeddingServer(32, { apiKey: 'sk-e2e' });
    const indexed = await indexWithOpenAI(fake.url, ['--json', '.']);
    expect(indexed.code, indexed.stderr).toBe(0);
    expect(JSON.parse(indexed.stdout).summary.embedder).toBe('openai:fake-embed');
    const requestsWhileIndexing = fake.embeddingRequests.length;
    const status = await runCli('oc-vector-index', ['--status'], { cwd: repo.root });
    expect(status.stdout).toContain(`embedder   openai:fake-embed (32 dimensions) at ${fake.url}`);
    expect(requestsWhileIndexing).toBeGreaterThan(1);
    expect(new Set(fake.headers.map((headers) => headers.authorization))).toEqual(new Set(['Bearer sk-e2e']));

    // No --openai-base-url: the index's record is not where to go; the search is lexical, naming the flag.
    const unnamed = await runCli('oc-vector-search', ['checksum of a file', '--json'], { cwd: repo.root, env: KEYED });
    expect(unnamed.code, unnamed.stderr).toBe(0);
    expect(JSON.parse(unnamed.stdout).fallback.reason).toMatch(/--openai-base-url/);
    expect(fake.embeddingRequests.length).toBe(requestsWhileIndexing);

    const named = ['--openai-base-url', fake.url];
    const search = await runCli('oc-vector-search', ['checksum of a file', '--json', ...named], {
      cwd: repo.root,
      env: KEYED,
    });
    expect(search.code, search.stderr).toBe(0);
    expect(search.stderr).toBe('');
    const response = JSON.parse(search.stdout);
    expect(response).toMatchObject({ mode: 'hybrid', embedder: 'openai:fake-embed' });
    expect(response.fallback).toBeUndefined();
    expect(response.results[0].signals.vector).toBeGreaterThan(0);
    expect(response.results[0].name).toBe('file_checksum');
    expect(fake.embeddingRequests.length).toBe(requestsWhileIndexing + 1);
    expect(fake.embeddingRequests.at(-1)!.input).toEqual(['checksum of a file']);

    // Without the key the server refuses: the hybrid search answers lexically and says why, naming the variable.
    const keyless = await runCli('oc-vector-search', ['checksum of a file', ...named], {
      cwd: repo.root,
      env: { OCVECTOR_EMBEDDER: '' },
    });
    expect(keyless.code).toBe(0);
    expect(keyless.stderr).toMatch(
      /^warning: the embedder openai:fake-embed is unavailable .*HTTP 401.*OCVECTOR_API_KEY/,
    );
    expect(keyless.stdout).toContain('file_checksum');

    const url = fake.url;
    await fake.close();
    fake = undefined;
    const down = await runCli('oc-vector-search', ['checksum of a file', '--mode', 'vector', ...named], {
      cwd: repo.root,
      env: KEYED,
    });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(`no server answers at ${url} (ECONNREFUSED)`);
    expect(down.stderr).not.toMatch(/ollama/i);
  });

  it('a model the server does not serve stops the run with a message in its terms, not "ollama pull"', async () => {
    repo = searchRepo();
    fake = await FakeOpenAI.start({ models: ['bge-m3'], embeddings: () => ({ vectors: [[1, 0]] }) });
    const run = await indexWithOpenAI(fake.url, ['.']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`the server at ${fake.url} has no embedding model fake-embed (HTTP 404: `);
    expect(run.stderr).toMatch(/check the model name it serves \(it lists bge-m3\)/);
    expect(run.stderr).not.toMatch(/ollama pull/);
  });

  it('analysis through /chat/completions with --llm openai, recorded in --status', async () => {
    repo = searchRepo();
    fake = await fakeOpenAIEmbeddingServer(32);
    const answers = await FakeOpenAI.start({
      chat: (request) => {
        const path = /File: (\S+)/.exec(request.messages[0]!.content)?.[1] ?? 'x';
        const answer = { 'file-path': path, language: 'x', summary: 'S', imports: [], elements: [] };
        return { content: JSON.stringify(answer) };
      },
    });
    try {
      const args = ['--llm', 'openai', '--model', 'coder', '--openai-base-url', answers.url];
      const run = await runCli('oc-vector-index', [...args, '--embedder', 'builtin', '--json', '.'], {
        cwd: repo.root,
        env: { OCVECTOR_EMBEDDER: '' },
      });
      expect(run.code, run.stderr).toBe(0);
      expect(answers.chats.length).toBeGreaterThan(0);
      expect(answers.chats[0]).toMatchObject({
        model: 'coder',
        temperature: 0,
        response_format: { type: 'json_schema', json_schema: { strict: true } },
      });
      const status = JSON.parse((await runCli('oc-vector-index', ['--status', '--json'], { cwd: repo.root })).stdout);
      expect(status.lastRun).toMatchObject({ analysisModel: 'coder', modelCalls: answers.chats.length });
      expect(status.embedder).toMatchObject({ id: 'builtin:v2:512' });
      expect(status.embedder.host).toBeUndefined();
    } finally {
      await answers.close();
    }
  });
});

describe('the options for an OpenAI-compatible server', () => {
  it('are refused where something is missing, before anything is sent', async () => {
    repo = searchRepo();
    const noModel = await runCli(
      'oc-vector-index',
      ['--embedder', 'openai', '--openai-base-url', 'http://127.0.0.1:9/v1'],
      {
        cwd: repo.root,
      },
    );
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toMatch(/--embedder openai needs --embedding-model/);
    const noUrl = await runCli('oc-vector-index', ['--llm', 'openai', '--model', 'coder'], { cwd: repo.root });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/--llm openai needs --openai-base-url/);
    const noBaseUrl = await runCli('oc-vector-index', ['--no-llm', '--embedder', 'openai', '--embedding-model', 'e5'], {
      cwd: repo.root,
      env: { OCVECTOR_EMBEDDER: '' },
    });
    expect(noBaseUrl.code).toBe(2);
    expect(noBaseUrl.stderr).toMatch(/needs its base URL .*--openai-base-url/);
  });

  it('are in the help of each command, with the variable the key is read from', async () => {
    for (const bin of ['oc-vector-index', 'oc-vector-search', 'oc-vector-mcp', 'oc-vector-eval']) {
      const help = await runCli(bin, ['--help'], { cwd: process.cwd() });
      expect(help.code).toBe(0);
      expect(help.stdout, bin).toMatch(/--openai-base-url <url>/);
      expect(help.stdout.replace(/\s+/g, ' '), bin).toContain('OCVECTOR_API_KEY');
    }
    const index = await runCli('oc-vector-index', ['--help'], { cwd: process.cwd() });
    expect(index.stdout).toMatch(/--embedder <kind>[\s\S]*"openai"/);
    expect(index.stdout).toMatch(/--llm <kind>/);
  });
});
