/**
 * The MCP server over Streamable HTTP, in process, on a real port (0: any
 * free one) over a small real index: the SDK's own client with bearer
 * tokens, many clients at once, what each token may do, and requests that
 * are refused (no token, a wrong one, too large, not JSON, another method
 * or path), after each of which the server serves on.
 */
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectWithToken } from '../helpers/mcp-http.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer, type CodebaseSearchOutput } from '../../src/index.js';
import { unknownRepository } from '../../src/mcp/access.js';
import { serveMcpOverHttp, type McpHttpServer } from '../../src/mcp/http.js';
import { createCodebaseMcpService, type CodebaseMcpService } from '../../src/mcp/server.js';
import { parseTokens, type TokenTable } from '../../src/mcp/tokens.js';
import type { TempRepo } from '../helpers/repo.js';
import { searchRepo } from '../helpers/search-repo.js';

const READ = 'read-token-0123456789abcdef';
const WRITE = 'write-token-0123456789abcdef';
const LIMITED = 'limited-token-0123456789abcdef';

const OWN = 'own-repo-token-0123456789abcdef';

/** The tokens: read-only for all, write for all, one for a repository the index lacks, one for the index's own. */
function tokensFor(ownRepository: string): TokenTable {
  return (
    parseTokens({
      tokens: [
        { name: 'agents', token: READ, repos: ['*'] },
        { name: 'ci', token: WRITE, repos: ['*'], write: true },
        { name: 'web-team', token: LIMITED, repos: ['web'] },
        { name: 'own-team', token: OWN, repos: [ownRepository, 'web'] },
      ],
    }) as { tokens: TokenTable }
  ).tokens;
}

/** A JSON-RPC message posted by hand, as a client that speaks MCP would post it. */
function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body,
  });
}

const LIST_TOOLS = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

interface RpcAnswer {
  id?: number;
  result?: { isError?: boolean; structuredContent?: Record<string, unknown> };
  error?: { code: number; message: string };
}

/** A JSON-RPC request posted by hand with `token`: its answer, from the event stream or JSON the server sends. */
async function rpc(url: string, token: string, body: string): Promise<RpcAnswer> {
  const response = await post(url, body, { Authorization: `Bearer ${token}` });
  const text = await response.text();
  const data = /^data: ([^\n]*)/m.exec(text)?.[1] ?? text;
  return JSON.parse(data) as RpcAnswer;
}

/** A tools/call request as JSON text; `params` as given (undefined: none at all). */
function toolsCall(id: number, params?: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', ...(params === undefined ? {} : { params }) });
}

/** Characters that would break a log line, or rewrite the operator's terminal, if written raw. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters a log line must not hold raw
const RAW_CONTROL = /[\r\n\u2028\u2029\u001b]/;

describe('oc-vector-mcp over Streamable HTTP, with tokens', () => {
  let repo: TempRepo;
  let service: CodebaseMcpService;
  let server: McpHttpServer;
  const log: string[] = [];

  beforeAll(async () => {
    repo = searchRepo();
    await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
    service = createCodebaseMcpService({
      root: repo.root,
      indexer: { llm: false, embedder: 'builtin' },
      onLog: (line) => log.push(line),
    });
    server = await serveMcpOverHttp(service, {
      port: 0,
      tokens: tokensFor(basename(repo.root)),
      version: '9.9.9',
      onLog: (line) => log.push(line),
    });
  });
  afterAll(async () => {
    await server.close();
    await service.close();
    repo.cleanup();
  });

  const health = () => server.url.replace(/\/mcp$/, '/health');

  it('listens on a free port of the loopback address, and says where', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(server.port).toBeGreaterThan(0);
  });

  it('answers /health without a token', async () => {
    const response = await fetch(health());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', name: 'ocvector', version: '9.9.9' });
  });

  it('refuses /mcp without a token, and with a wrong one: 401, WWW-Authenticate, a JSON body', async () => {
    const none = await post(server.url, LIST_TOOLS);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="ocvector"');
    expect(await none.json()).toMatchObject({ error: { message: expect.stringMatching(/bearer token is required/) } });

    const wrong = await post(server.url, LIST_TOOLS, { Authorization: `Bearer ${READ.replace('0', '1')}` });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
    expect(await wrong.json()).toMatchObject({ error: { message: 'invalid token' } });

    await expect(connectWithToken(server.url, 'not-a-token-at-all')).rejects.toMatchObject({
      code: 401,
      message: expect.stringMatching(/invalid token/),
    });
  });

  it('searches through /mcp with a good token, with the SDK client', async () => {
    const client = await connectWithToken(server.url, READ);
    try {
      const result = await client.callTool({
        name: 'codebase_search',
        arguments: { query: 'hash a password with a salt', k: 3 },
      });
      expect(result.isError).toBe(false);
      expect((result.structuredContent as unknown as CodebaseSearchOutput).results[0]).toMatchObject({
        name: 'hashPassword',
        path: 'src/auth/passwords.ts',
      });
      const references = await client.callTool({ name: 'find_references', arguments: { symbol: 'hashPassword' } });
      expect(references.isError).toBe(false);
      expect(log).toContainEqual(
        expect.stringMatching(/^agents: codebase_search "hash a password with a salt": 3 results/),
      );
    } finally {
      await client.close();
    }
  });

  it('serves 8 clients searching at once, all answered in full', async () => {
    const queries = [
      'hash a password with a salt',
      'LruCache',
      'retry with backoff',
      'checksum of a file',
      'parse a config file',
      'validate a session',
      'hashPassword',
      'slugify a title',
    ];
    const clients = await Promise.all(queries.map(() => connectWithToken(server.url, READ)));
    try {
      const answers = await Promise.all(
        clients.map(async (client, i) => {
          const outputs: CodebaseSearchOutput[] = [];
          for (let round = 0; round < 3; round++) {
            const result = await client.callTool({ name: 'codebase_search', arguments: { query: queries[i], k: 5 } });
            expect(result.isError).toBe(false);
            outputs.push(result.structuredContent as unknown as CodebaseSearchOutput);
          }
          return outputs;
        }),
      );
      for (const outputs of answers) {
        expect(outputs[0]!.error).toBeUndefined();
        // The same query gets the same answer, however many others run beside it.
        expect(outputs[1]).toEqual(outputs[0]);
        expect(outputs[2]).toEqual(outputs[0]);
      }
      expect(answers[0]![0]!.results[0]).toMatchObject({ name: 'hashPassword' });
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  it('neither lists nor runs reindex for a read-only token; runs it for a write token', async () => {
    const reader = await connectWithToken(server.url, READ);
    const writer = await connectWithToken(server.url, WRITE);
    try {
      expect((await reader.listTools()).tools.map((tool) => tool.name)).toEqual([
        'codebase_search',
        'find_references',
        'find_files_to_change',
        'index_status',
      ]);
      const refused = await reader.callTool({ name: 'reindex', arguments: {} });
      expect(refused).toMatchObject({
        isError: true,
        structuredContent: { error: 'reindex needs a token with write access; the token "agents" may only search' },
      });

      expect((await writer.listTools()).tools.map((tool) => tool.name)).toContain('reindex');
      writeFileSync(
        join(repo.root, 'src/util/slug.ts'),
        '/** Turns a title into a URL slug. */\nexport function slugify(title: string): string {\n  return title.toLowerCase().replace(/[^a-z0-9]+/g, "-");\n}\n',
      );
      const progress: number[] = [];
      const reindex = await writer.callTool({ name: 'reindex', arguments: {} }, undefined, {
        onprogress: (p) => progress.push(p.progress),
      });
      expect(reindex.isError).toBeFalsy();
      expect(reindex.structuredContent).toMatchObject({ files: { added: 1, changed: 0 } });
      expect(progress.length).toBeGreaterThan(0);

      // Every client sees the new file: the one index is shared.
      const found = await reader.callTool({ name: 'codebase_search', arguments: { query: 'slugify', k: 1 } });
      expect((found.structuredContent as unknown as CodebaseSearchOutput).results[0]).toMatchObject({
        name: 'slugify',
      });
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  it('holds a token limited to repositories the index lacks to them: nothing found, nothing of the index shown', async () => {
    const client = await connectWithToken(server.url, LIMITED);
    try {
      const search = await client.callTool({ name: 'codebase_search', arguments: { query: 'hashPassword' } });
      expect(search.isError).toBe(true);
      expect((search.structuredContent as unknown as CodebaseSearchOutput).results).toEqual([]);
      const elsewhere = await client.callTool({
        name: 'codebase_search',
        arguments: { query: 'hashPassword', repos: [basename(repo.root)] },
      });
      expect(elsewhere.isError).toBe(true);
      const references = await client.callTool({ name: 'find_references', arguments: { symbol: 'hashPassword' } });
      expect(references.isError).toBe(true);
      const status = await client.callTool({ name: 'index_status', arguments: {} });
      expect(status).toMatchObject({ isError: true, structuredContent: { error: unknownRepository('web') } });
      for (const answer of [search, elsewhere, references, status]) {
        expect(JSON.stringify(answer)).not.toContain('passwords.ts');
        expect(JSON.stringify(answer)).not.toContain(repo.root);
      }
      expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('reindex');
    } finally {
      await client.close();
    }
  });

  it('answers a repository outside the token exactly as one the index does not have', async () => {
    const limited = await connectWithToken(server.url, LIMITED);
    const reader = await connectWithToken(server.url, READ);
    try {
      const own = basename(repo.root);
      // The index has `own`, which the token may not see; it has no `web`, which a token for all asks for.
      const forbidden = await limited.callTool({ name: 'codebase_search', arguments: { query: 'x', repos: [own] } });
      const missing = await reader.callTool({ name: 'codebase_search', arguments: { query: 'x', repos: ['web'] } });
      expect(missing.isError).toBe(true);
      expect(JSON.stringify(forbidden).replaceAll(own, 'NAME')).toBe(JSON.stringify(missing).replaceAll('web', 'NAME'));
    } finally {
      await limited.close();
      await reader.close();
    }
  });

  it('keeps a token limited to repositories to its own that the index has: search, references, status', async () => {
    const client = await connectWithToken(server.url, OWN);
    try {
      const search = await client.callTool({ name: 'codebase_search', arguments: { query: 'hash a password', k: 1 } });
      expect(search.isError).toBe(false);
      expect((search.structuredContent as unknown as CodebaseSearchOutput).results[0]).toMatchObject({
        name: 'hashPassword',
      });
      const references = await client.callTool({ name: 'find_references', arguments: { symbol: 'hashPassword' } });
      expect(references.isError).toBe(false);
      const status = await client.callTool({ name: 'index_status', arguments: {} });
      expect(status.isError).toBeFalsy();
      expect(status.structuredContent).toMatchObject({
        root: repo.root,
        repositories: [{ name: basename(repo.root), root: repo.root }],
      });
    } finally {
      await client.close();
    }
  });

  it('refuses a body over the size limit with 413, and serves on', async () => {
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(2 << 20) } });
    const response = await post(server.url, huge, { Authorization: `Bearer ${READ}` });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'the request body is over 1048576 bytes' },
      id: null,
    });
    expect((await post(server.url, LIST_TOOLS, { Authorization: `Bearer ${READ}` })).status).toBe(200);
  });

  it('answers a body that is not JSON with a JSON-RPC parse error, and serves on', async () => {
    const response = await post(server.url, '{"jsonrpc": "2.0", "id": 1, "method": ', {
      Authorization: `Bearer ${READ}`,
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32700);
    expect(body.error.message).toMatch(/^Parse error: the body is not JSON/);
    expect(JSON.stringify(body)).not.toMatch(/\n\s+at /);
    expect((await post(server.url, LIST_TOOLS, { Authorization: `Bearer ${READ}` })).status).toBe(200);
  });

  it('logs one escaped line per call, whatever the symbol or query holds: no line forged for another token', async () => {
    const forged = 'x\noc-vector-mcp: ci: reindex: 9 added, 0 changed\r\u2028\u2029\u001b[31mFORGED';
    log.length = 0;
    await rpc(server.url, READ, toolsCall(1, { name: 'find_references', arguments: { symbol: forged } }));
    await rpc(server.url, READ, toolsCall(2, { name: 'codebase_search', arguments: { query: `retry\n${forged}` } }));
    const lines = log.filter((line) => line.includes('FORGED'));
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line).toMatch(/^agents: (find_references|codebase_search) "/);
      expect(line).not.toMatch(RAW_CONTROL);
      expect(line).toContain('x\\noc-vector-mcp: ci: reindex: 9 added, 0 changed\\r\\u2028\\u2029\\u001b[31mFORGED');
    }
  });

  it('logs a rejected query of a mebibyte as a short prefix that says how long it was', async () => {
    log.length = 0;
    const query = 'q'.repeat(1_000_000);
    const answer = await rpc(server.url, READ, toolsCall(1, { name: 'codebase_search', arguments: { query } }));
    expect(answer.result?.structuredContent?.error).toMatch(/query must NOT have more than 2000 characters/);
    const line = log.find((entry) => entry.startsWith('agents: codebase_search'));
    expect(line).toBeDefined();
    expect(line!.length).toBeLessThan(600);
    expect(line).toContain(`"${'q'.repeat(200)}"… (1000000 characters)`);
  });

  it('answers -32602 with one sentence to tools/call without params, and to arguments nested 400,000 deep', async () => {
    const noParams = await rpc(server.url, READ, toolsCall(7));
    expect(noParams).toMatchObject({
      id: 7,
      error: {
        code: -32602,
        message: expect.stringMatching(/^invalid params: tools\/call needs params with the tool's name/),
      },
    });
    const notAnObject = await rpc(server.url, READ, toolsCall(8, { name: 'codebase_search', arguments: [1] }));
    expect(notAnObject.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/arguments must be an object/),
    });
    // Arrays, then objects, nested 400,000 deep: under the body limit, far over any stack.
    const deep = [`${'['.repeat(400_000)}${']'.repeat(400_000)}`, `${'{"a":'.repeat(150_000)}1${'}'.repeat(150_000)}`];
    for (const [i, value] of deep.entries()) {
      const body = `{"jsonrpc":"2.0","id":${10 + i},"method":"tools/call","params":{"name":"codebase_search","arguments":{"query":${value}}}}`;
      const answer = await rpc(server.url, READ, body);
      expect(answer).toMatchObject({
        id: 10 + i,
        error: { code: -32602, message: expect.stringMatching(/^invalid params: nested more than 16 levels deep/) },
      });
    }
    // One sentence, not the schema library's dump of its issues.
    for (const answer of [noParams, notAnObject]) expect(answer.error!.message).not.toMatch(/\n|invalid_type|"path"/);
    // Still serving.
    const after = await rpc(
      server.url,
      READ,
      toolsCall(20, { name: 'codebase_search', arguments: { query: 'LruCache' } }),
    );
    expect(after.result?.isError).toBe(false);
  });

  it('answers another method with 405 and another path with 404, as JSON, and serves on', async () => {
    const auth = { Authorization: `Bearer ${READ}` };
    const get = await fetch(server.url, { headers: { ...auth, Accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const del = await fetch(server.url, { method: 'DELETE', headers: auth });
    expect(del.status).toBe(405);
    const healthPost = await fetch(health(), { method: 'POST' });
    expect(healthPost.status).toBe(405);
    const elsewhere = await fetch(server.url.replace(/\/mcp$/, '/admin'), { headers: auth });
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toMatchObject({ error: { message: 'nothing at /admin: MCP is served at /mcp' } });
    const client = await connectWithToken(server.url, READ);
    expect((await client.listTools()).tools.length).toBe(4);
    await client.close();
  });
});

describe('oc-vector-mcp over Streamable HTTP, without tokens', () => {
  let repo: TempRepo;
  let service: CodebaseMcpService;
  let server: McpHttpServer;

  beforeAll(async () => {
    repo = searchRepo();
    await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
    service = createCodebaseMcpService({ root: repo.root });
    server = await serveMcpOverHttp(service, { port: 0 });
  });
  afterAll(async () => {
    await server.close();
    await service.close();
    repo.cleanup();
  });

  it('refuses to bind anything but loopback', async () => {
    await expect(serveMcpOverHttp(service, { port: 0, host: '0.0.0.0' })).rejects.toThrow(
      /0\.0\.0\.0 is not a loopback address: serving beyond this machine needs tokens/,
    );
  });

  it('serves every tool to a loopback client with no token', async () => {
    const client = new Client({ name: 'ocvector-http-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
        'codebase_search',
        'find_references',
        'find_files_to_change',
        'index_status',
        'reindex',
      ]);
      const status = await client.callTool({ name: 'index_status', arguments: {} });
      expect(status.structuredContent).toMatchObject({ root: repo.root });
    } finally {
      await client.close();
    }
  });

  it('refuses a request whose Host or Origin is not loopback (DNS rebinding)', async () => {
    const rebound = await post(server.url, LIST_TOOLS, { Origin: 'http://evil.example' });
    expect(rebound.status).toBe(403);
    expect((await post(server.url, LIST_TOOLS, { Origin: 'http://localhost:3000' })).status).toBe(200);
  });
});
