/**
 * oc-vector-mcp --http as a user starts it (the built CLI): it says where it
 * listens (port 0 included), serves a client, ends on SIGTERM; and it
 * refuses, with exit code 2 and a sentence, what it must not do: bind
 * beyond loopback without tokens, start with a bad tokens file (or one
 * other users may read), take --host or --tokens without --http, serve a
 * --schema that is PostgreSQL's own or not a name.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectWithToken } from '../helpers/mcp-http.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer, type CodebaseSearchOutput } from '../../src/index.js';
import type { TempRepo } from '../helpers/repo.js';
import { runCli } from '../helpers/run-node.js';
import { searchRepo } from '../helpers/search-repo.js';

const SERVER = new URL('../../dist/cli/oc-vector-mcp.js', import.meta.url).pathname;
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', OLLAMA_HOST: 'http://127.0.0.1:9' };
const TOKEN = 'cli-test-token-0123456789abcdef';

/** The server started in `cwd` with `args`; resolves with the URL it says it listens on. */
function start(cwd: string, args: string[]): { child: ChildProcess; url: Promise<string>; stderr: () => string } {
  const child = spawn(process.execPath, [SERVER, '--no-llm', ...args], {
    cwd,
    env: ENV,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const listening = /listening on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (listening) resolve(listening[1]!);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening: ${stderr}`)));
  });
  return { child, url, stderr: () => stderr };
}

function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

describe('oc-vector-mcp --http', () => {
  let repo: TempRepo;
  let dir: string;
  beforeAll(async () => {
    repo = searchRepo();
    dir = mkdtempSync(join(tmpdir(), 'ocvector-mcp-cli-'));
    await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
  });
  afterAll(() => {
    repo.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('listens on port 0 of loopback, says where on stderr, serves a search, and ends on SIGTERM', async () => {
    const server = start(repo.root, ['--http', '0']);
    try {
      const url = await server.url;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/mcp$/);
      expect((await fetch(url.replace(/\/mcp$/, '/health'))).status).toBe(200);
      const client = new Client({ name: 'ocvector-cli-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const result = await client.callTool({ name: 'codebase_search', arguments: { query: 'LruCache', k: 1 } });
      expect((result.structuredContent as unknown as CodebaseSearchOutput).results).toHaveLength(1);
      await client.close();
    } finally {
      expect(await stop(server.child)).toBe(0);
    }
    expect(server.stderr()).toMatch(/codebase_search "LruCache": 1 results/);
  });

  it('searches on the worker threads --search-workers asks for, and says so', async () => {
    const server = start(repo.root, ['--http', '0', '--search-workers', '2']);
    try {
      const client = new Client({ name: 'ocvector-cli-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(await server.url)));
      const answers = await Promise.all(
        ['LruCache', 'hash a password', 'LruCache'].map((query) =>
          client.callTool({ name: 'codebase_search', arguments: { query, k: 1 } }),
        ),
      );
      for (const answer of answers)
        expect((answer.structuredContent as unknown as CodebaseSearchOutput).results).toHaveLength(1);
      await client.close();
    } finally {
      expect(await stop(server.child)).toBe(0);
    }
    expect(server.stderr()).toMatch(/searches on 2 worker threads/);
    const bad = await runCli('oc-vector-mcp', ['--http', '0', '--search-workers', 'many'], { cwd: repo.root });
    expect(bad).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--search-workers must be an integer from 0 to 64/),
    });
  });

  it('binds beyond loopback with --tokens, and answers only a bearer of one', async () => {
    const tokens = join(dir, 'tokens.json');
    writeFileSync(tokens, JSON.stringify({ tokens: [{ name: 'agents', token: TOKEN, repos: ['*'] }] }), {
      mode: 0o600,
    });
    const server = start(repo.root, ['--http', '0', '--host', '0.0.0.0', '--tokens', tokens, '-q']);
    try {
      const url = (await server.url).replace('0.0.0.0', '127.0.0.1');
      expect((await fetch(url, { method: 'POST', body: '{}' })).status).toBe(401);
      const client = await connectWithToken(url, TOKEN);
      expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('reindex');
      await client.close();
    } finally {
      expect(await stop(server.child)).toBe(0);
    }
    // -q: the address and nothing else.
    expect(server.stderr().trim().split('\n')).toEqual([expect.stringMatching(/^oc-vector-mcp: listening on /)]);
  });

  it('refuses a non-loopback address without --tokens: exit 2, and a sentence that names the fix', async () => {
    const run = await runCli('oc-vector-mcp', ['--http', '0', '--host', '0.0.0.0'], { cwd: repo.root });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /--host 0\.0\.0\.0 is not a loopback address: serving beyond this machine needs --tokens <file>/,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses a bad tokens file with exit 2, naming the problem', async () => {
    const short = join(dir, 'short.json');
    writeFileSync(short, JSON.stringify({ tokens: [{ name: 'agents', token: 'abc', repos: ['*'] }] }), { mode: 0o600 });
    const open = join(dir, 'open.json');
    writeFileSync(open, JSON.stringify({ tokens: [{ name: 'agents', token: 'abc', repos: ['*'] }] }), { mode: 0o644 });
    const cases: [string[], RegExp][] = [
      [['--tokens', join(dir, 'absent.json')], /--tokens: cannot read the tokens file .*absent\.json: no such file/],
      [
        ['--tokens', short],
        /--tokens: the tokens file .*short\.json: entry 1 \("agents"\): the token is 3 characters; use at least 16/,
      ],
      // Open to others: refused as ssh refuses an open private key, unless allowed (then read, and checked).
      [
        ['--tokens', open],
        /--tokens: the tokens file .*open\.json is open to other users \(mode 0644\): make it yours alone with chmod 600 .*, or pass --allow-readable-tokens/,
      ],
      [
        ['--tokens', open, '--allow-readable-tokens'],
        /--tokens: the tokens file .*open\.json: entry 1 \("agents"\): the token is 3/,
      ],
      [['--allow-readable-tokens'], /--allow-readable-tokens is about the file of --tokens <file>: give --tokens too/],
    ];
    for (const [args, message] of cases) {
      const run = await runCli('oc-vector-mcp', ['--http', '0', ...args], { cwd: repo.root });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it("refuses at start a --schema that is not the store's to have: a system schema, or not a name", async () => {
    // No server at this address: the name is refused before anything connects.
    const store = 'postgres://ocvector@127.0.0.1:9/db';
    for (const [schema, message] of [
      ['information_schema', /"information_schema" is one of PostgreSQL's own schemas/],
      ['pg_catalog', /"pg_catalog" is one of PostgreSQL's own schemas/],
      ['PG_TEMP_3', /"PG_TEMP_3" is one of PostgreSQL's own schemas/],
      ['a-b', /"a-b" is not a schema name for the PostgreSQL store/],
    ] as const) {
      for (const cli of ['oc-vector-mcp', 'oc-vector-index'] as const) {
        const run = await runCli(cli, ['--store', store, '--schema', schema, '--no-llm'], {
          cwd: repo.root,
          timeout: 20_000,
        });
        expect(run.code, `${cli} --schema ${schema}: ${run.stderr}`).toBe(2);
        expect(run.stderr).toMatch(new RegExp(`^${cli}: --schema: ${message.source}`));
        expect(run.stderr.trim().split('\n')).toHaveLength(1);
      }
    }
    const fromEnvironment = await runCli('oc-vector-mcp', ['--store', store], {
      cwd: repo.root,
      env: { OCVECTOR_SCHEMA: 'information_schema' },
      timeout: 20_000,
    });
    expect(fromEnvironment.code).toBe(2);
    expect(fromEnvironment.stderr).toMatch(/^oc-vector-mcp: OCVECTOR_SCHEMA: "information_schema" is one of/);
  });

  it('refuses --host or --tokens without --http, and a port out of range', async () => {
    const host = await runCli('oc-vector-mcp', ['--host', '127.0.0.1'], { cwd: repo.root });
    expect(host).toMatchObject({ code: 2, stderr: expect.stringMatching(/--host needs --http <port>/) });
    const port = await runCli('oc-vector-mcp', ['--http', '70000'], { cwd: repo.root });
    expect(port).toMatchObject({ code: 2, stderr: expect.stringMatching(/--http must be an integer from 0 to 65535/) });
  });
});
