/**
 * oc-vector-mcp spawned as an MCP client would spawn it (the built CLI,
 * stdio), driven by the SDK's own client; then by hand, with lines that are
 * not JSON-RPC at all.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer, type CodebaseSearchOutput, type FindReferencesOutput } from '../../src/index.js';
import { fakeEmbeddingServer } from '../helpers/fake-ollama.js';
import { fakeOpenAIEmbeddingServer } from '../helpers/fake-openai.js';
import type { TempRepo } from '../helpers/repo.js';
import { searchRepo } from '../helpers/search-repo.js';

const SERVER = new URL('../../dist/cli/oc-vector-mcp.js', import.meta.url).pathname;
/** No model server and the built-in embedder: the test does not depend on this machine's Ollama. */
const ENV = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  OLLAMA_HOST: 'http://127.0.0.1:9',
  OCVECTOR_EMBEDDER: 'builtin',
};

describe('oc-vector-mcp over stdio, with the SDK client', () => {
  let repo: TempRepo;
  let client: Client;
  let stderr = '';

  beforeAll(async () => {
    repo = searchRepo();
    await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER, '--no-llm'],
      cwd: join(repo.root, 'src'),
      env: ENV,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    client = new Client({ name: 'ocvector-test', version: '1.0.0' });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
    repo.cleanup();
  });

  it('lists five tools with their schemas, and marks only reindex as writing', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'codebase_search',
      'find_references',
      'find_files_to_change',
      'index_status',
      'reindex',
    ]);
    const [search, references, files, status, reindex] = tools;
    expect(files!.inputSchema).toMatchObject({ required: ['issue'], properties: { issue: { type: 'string' } } });
    expect(files!.annotations).toMatchObject({ readOnlyHint: true });
    expect(references!.inputSchema).toMatchObject({ required: ['symbol'], properties: { symbol: { type: 'string' } } });
    expect(references!.annotations).toMatchObject({ readOnlyHint: true });
    expect(search!.inputSchema).toMatchObject({
      type: 'object',
      required: ['query'],
      properties: { query: { type: 'string' }, k: { maximum: 20 }, explain: { type: 'boolean' } },
    });
    expect(search!.outputSchema).toMatchObject({
      properties: { results: { items: { properties: { explain: { required: ['terms'] } } } } },
    });
    expect(search!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(status!.annotations).toMatchObject({ readOnlyHint: true });
    expect(reindex!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(client.getServerVersion()).toMatchObject({
      name: 'ocvector',
      version: JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version,
    });
  });

  it('answers codebase_search on the indexed fixture, as text and as structured content', async () => {
    const result = await client.callTool({
      name: 'codebase_search',
      arguments: { query: 'hash a password with a salt', k: 3 },
    });
    expect(result.isError).toBe(false);
    const output = result.structuredContent as unknown as CodebaseSearchOutput;
    expect(output.results[0]).toMatchObject({ name: 'hashPassword', path: 'src/auth/passwords.ts', start_line: 6 });
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(output);
    expect(stderr).toMatch(/codebase_search "hash a password with a salt": 3 results \(\d+ ms\)/);
  });

  it("answers codebase_search with explain: each result's score terms, which add up to its score", async () => {
    const result = await client.callTool({
      name: 'codebase_search',
      arguments: { query: 'hash a password with a salt', k: 3, explain: true },
    });
    expect(result.isError).toBe(false);
    const output = result.structuredContent as unknown as CodebaseSearchOutput;
    expect(output.results.length).toBeGreaterThan(0);
    expect(output.results[0]!.explain!.terms.map((term) => term.feature)).toContain('lexical');
    for (const hit of output.results) {
      const terms = hit.explain!.terms;
      expect(terms.length).toBeGreaterThan(0);
      const sum = terms.reduce((total, term) => total + term.contribution, 0);
      // Each number is rounded to 4 decimals, as the score is.
      expect(Math.abs(sum - hit.score)).toBeLessThanOrEqual(5e-5 * (terms.length + 1));
    }
    const plain = await client.callTool({ name: 'codebase_search', arguments: { query: 'hashPassword', k: 3 } });
    const hits = (plain.structuredContent as unknown as CodebaseSearchOutput).results;
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((hit) => hit.explain === undefined)).toBe(true);
  });

  it('answers find_references: the definition, then each line that names the symbol', async () => {
    const result = await client.callTool({ name: 'find_references', arguments: { symbol: 'hashPassword' } });
    expect(result.isError).toBe(false);
    const output = result.structuredContent as unknown as FindReferencesOutput;
    expect(output.definitions[0]).toMatchObject({ name: 'hashPassword', path: 'src/auth/passwords.ts', start_line: 6 });
    expect(output.files[0]).toMatchObject({ path: 'src/auth/passwords.ts', defines: true });
    expect(output.files[0]!.lines.some((line) => line.definition && line.text?.includes('hashPassword'))).toBe(true);
    expect(output.total).toBeGreaterThanOrEqual(output.files.length);
    const bad = await client.callTool({ name: 'find_references', arguments: { symbol: 'a b' } });
    expect(bad.isError).toBe(true);
    expect((bad.structuredContent as unknown as FindReferencesOutput).error).toMatch(/not a symbol name/);
    expect(stderr).toMatch(/find_references "hashPassword": \d+ lines in \d+ files \(\d+ ms\)/);
  });

  it('reports index_status, then reindex picks up an edit that search then finds', async () => {
    const status = await client.callTool({ name: 'index_status', arguments: {} });
    expect(status.structuredContent).toMatchObject({
      root: repo.root,
      embedder: { id: 'builtin:v2:512' },
      stale: { modified: [], deleted: [], added: [] },
    });

    writeFileSync(
      join(repo.root, 'src/util/slug.ts'),
      '/** Turns a title into a URL slug. */\nexport function slugify(title: string): string {\n  return title.toLowerCase().replace(/[^a-z0-9]+/g, "-");\n}\n',
    );
    const stale = await client.callTool({ name: 'index_status', arguments: {} });
    expect(stale.structuredContent).toMatchObject({ stale: { added: ['src/util/slug.ts'] } });

    const progress: number[] = [];
    const reindex = await client.callTool({ name: 'reindex', arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(reindex.isError).toBeFalsy();
    expect(reindex.structuredContent).toMatchObject({ files: { added: 1, changed: 0 } });
    expect(progress.length).toBeGreaterThan(0);

    const found = await client.callTool({ name: 'codebase_search', arguments: { query: 'slugify' } });
    expect((found.structuredContent as unknown as CodebaseSearchOutput).results[0]).toMatchObject({
      name: 'slugify',
      path: 'src/util/slug.ts',
    });
  });

  it('answers bad calls with errors and stays up', async () => {
    const badArgs = await client.callTool({ name: 'codebase_search', arguments: { k: 'many' } });
    expect(badArgs.isError).toBe(true);
    expect((badArgs.structuredContent as unknown as CodebaseSearchOutput).error).toBe(
      'invalid arguments: "query" is required; k must be an integer',
    );
    const traversal = await client.callTool({ name: 'reindex', arguments: { path: '../..' } });
    expect(traversal).toMatchObject({
      isError: true,
      structuredContent: {
        error: expect.stringMatching(/^path refused: .* leads outside the repository being updated/),
      },
    });
    const extra = await client.callTool({ name: 'index_status', arguments: { verbose: true } });
    expect(extra).toMatchObject({
      isError: true,
      structuredContent: { error: 'index_status takes no arguments (got verbose)' },
    });
    await expect(client.callTool({ name: 'drop_database', arguments: {} })).rejects.toThrow(
      /unknown tool "drop_database"; available: codebase_search, find_references, find_files_to_change, index_status, reindex/,
    );
    // A request whose params break the protocol's own schema.
    await expect(
      client.request(
        { method: 'tools/call', params: { arguments: {} } } as never,
        (await import('@modelcontextprotocol/sdk/types.js')).CallToolResultSchema,
      ),
    ).rejects.toThrow(/-32602|invalid/i);
    // Still serving.
    const after = await client.callTool({ name: 'codebase_search', arguments: { query: 'LruCache', k: 1 } });
    expect((after.structuredContent as unknown as CodebaseSearchOutput).results).toHaveLength(1);
  });
});

/** The server (--no-llm) in `cwd`, with `env` over the test's environment, and a client for it (not yet connected). */
function serverFor(cwd: string, env: Record<string, string>): { transport: StdioClientTransport; client: Client } {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, '--no-llm'],
    cwd,
    env: { ...ENV, ...env },
  });
  return { transport, client: new Client({ name: 'ocvector-test', version: '1.0.0' }) };
}

describe('oc-vector-mcp with an Ollama embedder', () => {
  it('index_status says when searches are degraded to keyword matches, and why', async () => {
    const fake = await fakeEmbeddingServer(64);
    const repo = searchRepo();
    // The user's OLLAMA_HOST: the server the index recorded is never asked on its own.
    const { transport, client } = serverFor(repo.root, { OLLAMA_HOST: fake.url, OCVECTOR_EMBEDDER: '' });
    try {
      await new Indexer({ path: repo.root, embedder: { host: fake.url, model: 'fake-embed' }, llm: false }).run();
      await client.connect(transport);
      const up = await client.callTool({ name: 'index_status', arguments: {} });
      expect(up.structuredContent).toMatchObject({
        embedder: { id: 'ollama:fake-embed' },
        search: { mode: 'hybrid', degraded: false },
      });

      await fake.close();
      const down = await client.callTool({ name: 'index_status', arguments: {} });
      expect(down.isError).toBeFalsy();
      const search = (down.structuredContent as { search: { mode: string; degraded: boolean; reason: string } }).search;
      expect(search).toMatchObject({ mode: 'lexical', degraded: true });
      expect(search.reason).toContain(`no Ollama server answers at ${fake.url}`);
      expect(search.reason).toMatch(/keyword matches only/);
    } finally {
      await client.close();
      await fake.close();
      repo.cleanup();
    }
  });
});

describe('oc-vector-mcp with an OpenAI-compatible embedder', () => {
  it('searches through the server OCVECTOR_OPENAI_BASE_URL names, with the key from OCVECTOR_API_KEY', async () => {
    const fake = await fakeOpenAIEmbeddingServer(64, { apiKey: 'sk-mcp' });
    const repo = searchRepo();
    const { transport, client } = serverFor(repo.root, {
      OCVECTOR_EMBEDDER: '',
      OCVECTOR_API_KEY: 'sk-mcp',
      OCVECTOR_OPENAI_BASE_URL: fake.url,
    });
    try {
      const embedder = { kind: 'openai', baseUrl: fake.url, model: 'fake-embed', apiKey: 'sk-mcp' } as const;
      await new Indexer({ path: repo.root, embedder, llm: false }).run();
      const indexed = fake.embeddingRequests.length;
      await client.connect(transport);
      const status = await client.callTool({ name: 'index_status', arguments: {} });
      expect(status.structuredContent).toMatchObject({
        embedder: { id: 'openai:fake-embed', host: fake.url },
        search: { mode: 'hybrid', degraded: false },
      });
      const found = await client.callTool({
        name: 'codebase_search',
        arguments: { query: 'checksum of a file', k: 3 },
      });
      expect((found.structuredContent as unknown as CodebaseSearchOutput).results.length).toBeGreaterThan(0);
      expect(fake.embeddingRequests.length).toBeGreaterThan(indexed);
      expect(fake.headers.at(-1)!.authorization).toBe('Bearer sk-mcp');
    } finally {
      await client.close();
      await fake.close();
      repo.cleanup();
    }
  });
});

describe('oc-vector-mcp on raw stdio', () => {
  it('survives lines that are not JSON-RPC, keeps stdout to the protocol, and exits when stdin closes', async () => {
    const repo = searchRepo();
    try {
      // No index yet: the server still starts, and says what to do.
      const child = spawn(process.execPath, [SERVER, '--no-llm'], {
        cwd: repo.root,
        env: ENV,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const responses = () =>
        stdout
          .split('\n')
          .filter(Boolean)
          .map(
            (line) => JSON.parse(line) as { id?: number; result?: Record<string, unknown>; error?: { code: number } },
          );
      const waitFor = async (id: number) => {
        for (let i = 0; i < 200 && !responses().some((r) => r.id === id); i++)
          await new Promise((resolve) => setTimeout(resolve, 25));
        return responses().find((r) => r.id === id);
      };
      const send = (message: unknown) =>
        child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);

      send('this is not json');
      send('{"jsonrpc": "2.0", "id": 99, "method": ');
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
      });
      expect((await waitFor(1))?.result).toMatchObject({
        serverInfo: { name: 'ocvector' },
        capabilities: { tools: {} },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'no/such/method' });
      expect((await waitFor(2))?.error?.code).toBe(-32601);
      send({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'codebase_search', arguments: { query: 'retry' } },
      });
      const noIndex = (await waitFor(3))?.result as { isError: boolean; structuredContent: CodebaseSearchOutput };
      expect(noIndex.isError).toBe(true);
      expect(noIndex.structuredContent.error).toMatch(
        /^no index at .*: build one with oc-vector-index \(or the reindex tool\)/,
      );
      send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'reindex', arguments: {} } });
      expect(
        ((await waitFor(4))!.result as { structuredContent: { files: { added: number } } }).structuredContent.files
          .added,
      ).toBeGreaterThan(5);
      send({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'codebase_search', arguments: { query: 'retry' } },
      });
      expect(
        ((await waitFor(5))!.result as { structuredContent: CodebaseSearchOutput }).structuredContent.results.length,
      ).toBeGreaterThan(0);

      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.stdin.end();
      expect(await exited).toBe(0);
      // Every stdout line was a JSON-RPC message (responses() parsed them all), one per request answered.
      expect(responses().map((r) => r.id)).toEqual([1, 2, 3, 4, 5]);
      expect(stderr).toMatch(/protocol error: .*JSON/i);
    } finally {
      repo.cleanup();
    }
  });
});

describe('oc-vector-mcp on stdio, against a hostile client', () => {
  it('logs one escaped, bounded line per call, and answers malformed params with -32602', async () => {
    const repo = searchRepo();
    try {
      await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
      const child = spawn(process.execPath, [SERVER, '--no-llm'], { cwd: repo.root, env: ENV, stdio: 'pipe' });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      // JSON.stringify leaves U+2028 raw, and a JSON-RPC line may hold it: split on \n only.
      const answers = () =>
        stdout
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { id?: number; error?: { code: number; message: string } });
      const answerTo = async (id: number) => {
        for (let i = 0; i < 400 && !answers().some((a) => a.id === id); i++)
          await new Promise((resolve) => setTimeout(resolve, 25));
        return answers().find((a) => a.id === id);
      };
      const send = (text: string) => child.stdin.write(`${text}\n`);
      const call = (id: number, params?: unknown) =>
        send(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', ...(params === undefined ? {} : { params }) }));

      send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
        }),
      );
      await answerTo(1);
      const forged = 'ab\noc-vector-mcp: ci: reindex: 9 added\r\u2028\u001b[2KFORGED';
      call(2, { name: 'find_references', arguments: { symbol: forged } });
      call(3, { name: 'codebase_search', arguments: { query: forged } });
      call(4, { name: 'codebase_search', arguments: { query: 'z'.repeat(5_000_000) } });
      call(5);
      send(
        `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"find_references","arguments":{"symbol":${'['.repeat(400_000)}${']'.repeat(400_000)}}}}`,
      );
      for (const id of [2, 3, 4]) expect((await answerTo(id))?.error).toBeUndefined();
      expect(await answerTo(5)).toMatchObject({
        error: { code: -32602, message: expect.stringMatching(/^invalid params: tools\/call needs params/) },
      });
      expect(await answerTo(6)).toMatchObject({
        error: { code: -32602, message: expect.stringMatching(/^invalid params: nested more than 16 levels deep/) },
      });

      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.stdin.end();
      expect(await exited).toBe(0);
      const lines = stderr.split('\n').filter(Boolean);
      // Every line is the server's own, one per event: none begins with the forged text.
      expect(lines.every((line) => line.startsWith('oc-vector-mcp: '))).toBe(true);
      const forgedLines = lines.filter((line) => line.includes('FORGED'));
      expect(forgedLines).toHaveLength(2);
      for (const line of forgedLines) {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters a log line must not hold raw
        expect(line).not.toMatch(/[\r\u2028\u001b]/);
        expect(line).toContain('"ab\\noc-vector-mcp: ci: reindex: 9 added\\r\\u2028\\u001b[2KFORGED"');
      }
      const long = lines.find((line) => line.includes('zzzz'));
      expect(long).toMatch(/^oc-vector-mcp: codebase_search "z{200}"… \(5000000 characters\): error: /);
      expect(long!.length).toBeLessThan(600);
      expect(lines.filter((line) => line.includes('refused tools/call: invalid params'))).toHaveLength(2);
    } finally {
      repo.cleanup();
    }
  });
});
