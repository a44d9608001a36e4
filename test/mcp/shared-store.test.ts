/**
 * A team's index, end to end, through the commands a team runs: two repositories indexed into
 * one PostgreSQL database by two `oc-vector-index --store` processes at once, then served by
 * `oc-vector-mcp --http --store --tokens` to clients with different tokens, each seeing only what
 * its token allows (results, status, errors); `oc-vector-search --store` and `--status`, and
 * `--drop --repo` on the store. PostgreSQL is PGlite with pgvector on a loopback port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { connectWithToken } from '../helpers/mcp-http.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodebaseSearchOutput } from '../../src/index.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';
import { runCli } from '../helpers/run-node.js';
import { startPostgres, type Postgres } from '../support/postgres.js';

const TOKENS = {
  everyone: 'everyone-token-0123456789abcdef',
  web: 'web-team-token-0123456789abcdef',
  ci: 'ci-token-0123456789abcdef0123',
};

const CLI = new URL('../../dist/cli/oc-vector-mcp.js', import.meta.url).pathname;

let postgres: Postgres;
let web: TempRepo;
let api: TempRepo;
let scratch: TempRepo;
let server: ChildProcess | undefined;
let url: string;

async function searchOver(token: string, args: Record<string, unknown>): Promise<CodebaseSearchOutput> {
  const client = await connectWithToken(url, token);
  try {
    const result = await client.callTool({ name: 'codebase_search', arguments: args });
    return result.structuredContent as unknown as CodebaseSearchOutput;
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  postgres = await startPostgres({ maxConnections: 16 });
  web = tempRepo({
    'src/checkout.ts':
      "/** Charges the cart to the customer card. */\nexport function chargeCart(total: number): string {\n  return 'charged ' + total;\n}\n",
    'src/cart.ts': 'export interface CartLine {\n  sku: string;\n  quantity: number;\n}\n',
  });
  api = tempRepo({
    'src/invoices.ts':
      "/** Issues an invoice for a paid order. */\nexport function issueInvoice(orderId: string): string {\n  return 'invoice ' + orderId;\n}\n",
    'src/orders.ts': 'export function cancelOrder(orderId: string): void {\n  void orderId;\n}\n',
  });
  scratch = tempRepo();
  // Two indexers at once, of two repositories, into one database.
  const runs = await Promise.all(
    [
      { repo: web, name: 'web' },
      { repo: api, name: 'api' },
    ].map(({ repo, name }) =>
      runCli('oc-vector-index', [repo.root, '--store', postgres.url, '--repo', name, '--no-llm', '--json'], {
        cwd: repo.root,
        timeout: 120_000,
      }),
    ),
  );
  for (const run of runs) expect(run.code, run.stderr).toBe(0);
  const tokensFile = join(scratch.root, 'tokens.json');
  writeFileSync(
    tokensFile,
    JSON.stringify({
      tokens: [
        { name: 'agents', token: TOKENS.everyone, repos: ['*'] },
        { name: 'web-team', token: TOKENS.web, repos: ['web'] },
        { name: 'ci', token: TOKENS.ci, repos: ['web', 'api'], write: true },
      ],
    }),
    { mode: 0o600 },
  );
  const child = spawn(
    process.execPath,
    [CLI, scratch.root, '--http', '0', '--store', postgres.url, '--tokens', tokensFile, '--no-llm'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', OLLAMA_HOST: 'http://127.0.0.1:9' },
    },
  );
  server = child;
  url = await new Promise<string>((resolve, reject) => {
    let said = '';
    createInterface({ input: child.stderr! }).on('line', (line) => {
      said += `${line}\n`;
      const found = /listening on (http:\/\/\S+)/.exec(line);
      if (found) resolve(found[1]!);
    });
    child.on('exit', (code) => reject(new Error(`oc-vector-mcp exited with ${code}: ${said}`)));
  });
}, 180_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  for (const repo of [web, api, scratch]) repo?.cleanup();
  await postgres?.stop();
});

describe('one PostgreSQL store for a team, over MCP HTTP', () => {
  it('searches both repositories, written by two indexers at once, for a token that may see both', async () => {
    const both = await searchOver(TOKENS.everyone, { query: 'charge the cart, issue an invoice', k: 10 });
    expect(both.error).toBeUndefined();
    expect(new Set(both.results.map((r) => r.repo))).toEqual(new Set(['web', 'api']));
    const one = await searchOver(TOKENS.everyone, { query: 'issueInvoice', repos: ['api'] });
    expect(one.results[0]).toMatchObject({ repo: 'api', path: 'src/invoices.ts', name: 'issueInvoice' });
    expect(one.results.every((r) => r.repo === 'api')).toBe(true);
  });

  it('keeps a token for one repository to it: its results, its status, and no word of the other', async () => {
    const mine = await searchOver(TOKENS.web, { query: 'charge the cart, issue an invoice', k: 10 });
    expect(mine.results.length).toBeGreaterThan(0);
    expect(mine.results.every((r) => r.repo === 'web')).toBe(true);
    const theirs = await searchOver(TOKENS.web, { query: 'issueInvoice', repos: ['api'] });
    expect(theirs.results).toEqual([]);
    expect(theirs.error).toMatch(/no repository named "api"/);
    const client = await connectWithToken(url, TOKENS.web);
    try {
      const status = await client.callTool({ name: 'index_status', arguments: {} });
      expect(status.isError).toBeFalsy();
      const text = JSON.stringify(status.structuredContent);
      expect(text).toContain('"web"');
      expect(text).not.toContain('api');
      expect(text).not.toContain('invoice');
      const refs = await client.callTool({ name: 'find_references', arguments: { symbol: 'issueInvoice' } });
      expect(JSON.stringify(refs.structuredContent)).not.toContain('invoices.ts');
      expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('reindex');
    } finally {
      await client.close();
    }
  });

  it('reindexes a repository of the store for a token with write access, and searches see it', async () => {
    api.write('src/refunds.ts', 'export function refundPayment(orderId: string): string {\n  return orderId;\n}\n');
    const client = await connectWithToken(url, TOKENS.ci);
    try {
      const result = await client.callTool({ name: 'reindex', arguments: { repo: 'api' } });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ files: { added: 1 } });
    } finally {
      await client.close();
    }
    const found = await searchOver(TOKENS.everyone, { query: 'refundPayment' });
    expect(found.results[0]).toMatchObject({ repo: 'api', path: 'src/refunds.ts' });
  });

  it('answers oc-vector-search and --status on the store, and --drop --repo removes one repository', async () => {
    const search = await runCli('oc-vector-search', ['chargeCart', '--store', postgres.url, '--json'], {
      cwd: scratch.root,
    });
    expect(search.code, search.stderr).toBe(0);
    const response = JSON.parse(search.stdout) as { results: { repo: string; path: string; snippet?: string }[] };
    expect(response.results[0]).toMatchObject({ repo: 'web', path: 'src/checkout.ts' });
    expect(response.results[0]!.snippet).toContain('charged');
    const status = await runCli('oc-vector-index', ['--status', '--store', postgres.url, '--json'], {
      cwd: scratch.root,
    });
    expect(status.code, status.stderr).toBe(0);
    // The two indexers ran at once: either may have made its repository first.
    const listed = (JSON.parse(status.stdout) as { repositories: { name: string }[] }).repositories.map((r) => r.name);
    expect(listed.sort()).toEqual(['api', 'web']);
    const refused = await runCli('oc-vector-index', ['--drop', '--store', postgres.url], { cwd: scratch.root });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--drop on a shared store removes one repository/);
    const dropped = await runCli('oc-vector-index', ['--drop', '--repo', 'web', '--store', postgres.url], {
      cwd: scratch.root,
    });
    expect(dropped.code, dropped.stderr).toBe(0);
    expect(dropped.stdout).toMatch(/removed the repository web \(2 files, \d+ elements\)/);
    const after = await searchOver(TOKENS.everyone, { query: 'chargeCart', k: 5 });
    expect(after.results.length).toBeGreaterThan(0);
    expect(after.results.every((r) => r.repo === 'api')).toBe(true);
    const badStore = await runCli('oc-vector-search', ['x', '--store', 'mysql://h/db'], { cwd: scratch.root });
    expect(badStore.code).toBe(2);
  });
});
