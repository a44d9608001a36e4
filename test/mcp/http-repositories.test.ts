/**
 * One index of two repositories, served to clients with different tokens
 * (issue 27): the repositories are indexed into one index by two
 * oc-vector-index processes started at once (the second waits for the
 * first's lock), then searched together and apart over MCP HTTP; each token
 * sees only its repositories (results, status, errors), and a write token
 * for some repositories may update those only.
 */
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectWithToken } from '../helpers/mcp-http.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodebaseSearchOutput } from '../../src/index.js';
import { serveMcpOverHttp, type McpHttpServer } from '../../src/mcp/http.js';
import { createCodebaseMcpService, type CodebaseMcpService } from '../../src/mcp/server.js';
import { parseTokens, type TokenTable } from '../../src/mcp/tokens.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';
import { runCli } from '../helpers/run-node.js';
import { searchFixtureFiles } from '../helpers/search-repo.js';

const ALL = 'all-repos-token-0123456789abcdef';
const WEB = 'web-only-token-0123456789abcdef';
const API = 'api-only-token-0123456789abcdef';
const CI = 'ci-write-token-0123456789abcdef';

const TOKENS = (
  parseTokens({
    tokens: [
      { name: 'agents', token: ALL, repos: ['*'] },
      { name: 'web-team', token: WEB, repos: ['web'] },
      { name: 'api-team', token: API, repos: ['api'] },
      { name: 'ci', token: CI, repos: ['web', 'api'], write: true },
    ],
  }) as { tokens: TokenTable }
).tokens;

/** The API repository: Python, about orders and invoices. */
const API_FILES = {
  'orders/invoice.py':
    'def compute_invoice_total(lines, tax_rate):\n    """Sum the order lines and add the tax."""\n    subtotal = sum(line.price * line.quantity for line in lines)\n    return subtotal * (1 + tax_rate)\n',
  'orders/refund.py':
    'def refund_order(order, reason):\n    """Give the customer their money back for an order."""\n    order.status = "refunded"\n    order.reason = reason\n    return order\n',
};

async function search(client: Client, args: Record<string, unknown>): Promise<CodebaseSearchOutput> {
  const result = await client.callTool({ name: 'codebase_search', arguments: args });
  return result.structuredContent as unknown as CodebaseSearchOutput;
}

describe('one index of two repositories over MCP HTTP, with tokens', () => {
  let web: TempRepo;
  let api: TempRepo;
  let shared: TempRepo;
  let service: CodebaseMcpService;
  let server: McpHttpServer;
  const indexDir = () => join(shared.root, 'team-index');

  beforeAll(async () => {
    web = tempRepo(searchFixtureFiles());
    api = tempRepo(API_FILES);
    shared = tempRepo();
    // Two writers at once: one takes the lock, the other waits for it (--wait), and both land.
    const runs = await Promise.all(
      [
        [web.root, 'web'],
        [api.root, 'api'],
      ].map(([dir, name]) =>
        runCli('oc-vector-index', [dir!, '--db', indexDir(), '--repo', name!, '--no-llm', '--wait', '60', '--quiet'], {
          cwd: shared.root,
          timeout: 120_000,
        }),
      ),
    );
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    service = createCodebaseMcpService({
      root: web.root,
      indexDir: indexDir(),
      indexer: { llm: false, embedder: 'builtin' },
    });
    server = await serveMcpOverHttp(service, { port: 0, tokens: TOKENS });
  }, 180_000);

  afterAll(async () => {
    await server?.close();
    await service?.close();
    for (const repo of [web, api, shared]) repo?.cleanup();
  });

  it('searches both repositories together for a token of every repository, each result naming its own', async () => {
    const client = await connectWithToken(server.url, ALL);
    try {
      const both = await search(client, { query: 'hash a password; invoice total with tax', k: 10 });
      expect(new Set(both.results.map((r) => r.repo))).toEqual(new Set(['web', 'api']));
      const apart = await search(client, { query: 'invoice total with tax', repos: ['api'] });
      expect(apart.results[0]).toMatchObject({ repo: 'api', path: 'orders/invoice.py', name: 'compute_invoice_total' });
      expect(apart.results.every((r) => r.repo === 'api')).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('keeps a token for one repository to it: results, status and errors', async () => {
    const client = await connectWithToken(server.url, WEB);
    try {
      const answer = await search(client, { query: 'invoice total with tax refund order', k: 10 });
      expect(answer.results.length).toBeGreaterThan(0);
      expect(answer.results.every((r) => r.repo === 'web')).toBe(true);
      // The other repository is answered exactly as one that does not exist.
      const other = await search(client, { query: 'invoice', repos: ['api'] });
      const missing = await search(client, { query: 'invoice', repos: ['nothing-here'] });
      expect(other.results).toEqual([]);
      expect(other.error).toBe(missing.error?.replace('nothing-here', 'api'));
      const status = await client.callTool({ name: 'index_status', arguments: {} });
      const text = JSON.stringify(status);
      expect(text).toContain('"web"');
      expect(text).not.toContain('"api"');
      expect(text).not.toContain('orders/');
    } finally {
      await client.close();
    }
    const apiClient = await connectWithToken(server.url, API);
    try {
      const answer = await search(apiClient, { query: 'hash a password with a salt', k: 10 });
      expect(answer.results.length).toBeGreaterThan(0);
      expect(answer.results.every((r) => r.repo === 'api')).toBe(true);
    } finally {
      await apiClient.close();
    }
  });

  it("shows a token for some repositories their figures only: another repository's run changes nothing it sees", async () => {
    const web = await connectWithToken(server.url, WEB);
    const ci = await connectWithToken(server.url, CI);
    const everyone = await connectWithToken(server.url, ALL);
    const status = async (client: Client) =>
      (await client.callTool({ name: 'index_status', arguments: {} })).structuredContent as Record<string, unknown>;
    try {
      const before = await status(web);
      // The store's generation and size move with every repository's run: not shown to a limited token.
      expect(before).not.toHaveProperty('generation');
      expect(before).not.toHaveProperty('sizeBytes');
      expect(before.vectorIndex).toEqual({ description: expect.any(String) });
      expect(before.repositories).toEqual([expect.objectContaining({ name: 'web' })]);
      const storeBefore = await status(everyone);

      api.write('orders/shipping.py', 'def shipping_cost(weight):\n    return 5 + weight * 2\n');
      const run = await ci.callTool({ name: 'reindex', arguments: { repo: 'api' } });
      expect(run.isError, JSON.stringify(run.content)).toBeFalsy();
      const summary = run.structuredContent as { elements: object; index: object };
      expect(summary).toMatchObject({ files: { added: 1 }, elements: { added: 1 } });
      // ci may update web and api, not see the store's totals.
      expect(summary).not.toHaveProperty('generation');
      expect(summary.elements).not.toHaveProperty('total');
      expect(summary.index).not.toHaveProperty('vectors');

      expect(await status(web)).toEqual(before);
      // A token for every repository sees the store's figures, and sees them move.
      const storeAfter = await status(everyone);
      expect(storeAfter.generation).toBeGreaterThan(storeBefore.generation as number);
      expect(storeAfter).toHaveProperty('sizeBytes');
    } finally {
      for (const client of [web, ci, everyone]) await client.close();
    }
  });

  it('lets a write token for some repositories update those by name, and no other', async () => {
    const client = await connectWithToken(server.url, CI);
    try {
      api.write('orders/discount.py', 'def apply_loyalty_discount(total):\n    return total * 0.9\n');
      const updated = await client.callTool({ name: 'reindex', arguments: { repo: 'api' } });
      expect(updated.isError, JSON.stringify(updated.content)).toBeFalsy();
      expect(updated.structuredContent).toMatchObject({ files: { added: 1 } });
      const found = await search(client, { query: 'apply_loyalty_discount' });
      expect(found.results[0]).toMatchObject({ repo: 'api', path: 'orders/discount.py' });
      // The whole root, or a repository outside its list: refused.
      expect((await client.callTool({ name: 'reindex', arguments: {} })).isError).toBe(true);
      const outside = await client.callTool({ name: 'reindex', arguments: { repo: 'secret' } });
      expect(outside.isError).toBe(true);
    } finally {
      await client.close();
    }
    const reader = await connectWithToken(server.url, WEB);
    try {
      expect((await reader.listTools()).tools.map((tool) => tool.name)).not.toContain('reindex');
    } finally {
      await reader.close();
    }
  });
});
