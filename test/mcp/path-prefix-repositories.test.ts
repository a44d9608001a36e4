/**
 * path_prefix on a server of two repositories (issue 38, defect 2): a path
 * is checked against the repository searched, never the index's first; a
 * refusal names no repository and no directory; and a repository whose
 * checkout is not on the server (removed here) fails no path_prefix search.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodebaseSearchOutput } from '../../src/index.js';
import { Indexer } from '../../src/internal.js';
import { serveMcpOverHttp, type McpHttpServer } from '../../src/mcp/http.js';
import { createCodebaseMcpService, type CodebaseMcpService } from '../../src/mcp/server.js';
import { parseTokens, type TokenTable } from '../../src/mcp/tokens.js';
import { connectWithToken } from '../helpers/mcp-http.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';

const EVERY = 'every-repo-token-0123456789abcdef';
const SECOND = 'second-only-token-0123456789abcdef';

const TOKENS = (
  parseTokens({
    tokens: [
      { name: 'agents', token: EVERY, repos: ['*'] },
      { name: 'billing-team', token: SECOND, repos: ['billing'] },
    ],
  }) as { tokens: TokenTable }
).tokens;

let payroll: TempRepo;
let billing: TempRepo;
let scratch: TempRepo;
let service: CodebaseMcpService;
let server: McpHttpServer;

async function search(token: string, args: Record<string, unknown>): Promise<CodebaseSearchOutput> {
  const client: Client = await connectWithToken(server.url, token);
  try {
    const result = await client.callTool({ name: 'codebase_search', arguments: args });
    return result.structuredContent as unknown as CodebaseSearchOutput;
  } finally {
    await client.close();
  }
}

/** An answer that refuses, or fails, without a word about the other repository or where any repository lives. */
function expectNothingOfOthers(answer: CodebaseSearchOutput): void {
  const text = JSON.stringify(answer);
  expect(text).not.toContain(payroll.root);
  expect(text).not.toContain(billing.root);
  expect(text).not.toContain('payroll');
  expect(text).not.toMatch(/ENOENT|lstat/);
}

beforeAll(async () => {
  // The first repository indexed: the one the path used to be checked against, whoever searched.
  payroll = tempRepo({
    'salaries/compute.ts':
      '/** Computes the monthly salary of an employee. */\nexport function monthlySalary(yearly: number): number {\n  return yearly / 12;\n}\n',
  });
  billing = tempRepo({
    'orders/invoice.ts':
      '/** Issues an invoice for a paid order. */\nexport function issueInvoice(orderId: string): string {\n  return "invoice " + orderId;\n}\n',
    'orders/refund.ts':
      '/** Refunds a cancelled order. */\nexport function refundOrder(orderId: string): string {\n  return "refund " + orderId;\n}\n',
  });
  scratch = tempRepo();
  const indexDir = join(scratch.root, 'index');
  for (const [repo, name] of [
    [payroll, 'payroll'],
    [billing, 'billing'],
  ] as const)
    await new Indexer({ path: repo.root, indexDir, repo: name, embedder: 'builtin', llm: false }).run();
  service = createCodebaseMcpService({ root: payroll.root, indexDir, indexer: { llm: false, embedder: 'builtin' } });
  server = await serveMcpOverHttp(service, { port: 0, tokens: TOKENS });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await service?.close();
  for (const repo of [payroll, billing, scratch]) repo?.cleanup();
});

describe('path_prefix with a token for the second repository', () => {
  it('refuses /etc without naming the other repository or any directory', async () => {
    const answer = await search(SECOND, { query: 'invoice', path_prefix: '/etc' });
    expect(answer.results).toEqual([]);
    expect(answer.error).toMatch(/^path_prefix refused: \/etc is outside the repository being searched/);
    expectNothingOfOthers(answer);
  });

  it("accepts a path inside its own repository, absolute or relative, and refuses one in the other's", async () => {
    for (const pathPrefix of [join(billing.root, 'orders'), 'orders', `${billing.root}/orders/*.ts`]) {
      const answer = await search(SECOND, { query: 'issue an invoice for an order', path_prefix: pathPrefix });
      expect(answer.error, pathPrefix).toBeUndefined();
      expect(answer.results.length, pathPrefix).toBeGreaterThan(0);
      expect(answer.results.every((hit) => hit.repo === 'billing' && hit.path.startsWith('orders/'))).toBe(true);
    }
    // The caller's own words come back, and nothing else: not whose directory it is.
    const given = join(payroll.root, 'salaries');
    const other = await search(SECOND, { query: 'salary', path_prefix: given });
    expect(other).toEqual({
      results: [],
      fallback_used: false,
      error: `path_prefix refused: ${given} is outside the repository being searched; give a path inside the repository, such as src/`,
    });
  });

  it('checks an absolute path against each repository searched, for a token of every repository', async () => {
    const inFirst = await search(EVERY, { query: 'monthly salary', path_prefix: join(payroll.root, 'salaries') });
    expect(inFirst.error).toBeUndefined();
    expect(inFirst.results[0]).toMatchObject({ repo: 'payroll', path: 'salaries/compute.ts' });
    const named = await search(EVERY, {
      query: 'issue an invoice',
      path_prefix: join(billing.root, 'orders'),
      repos: ['billing'],
    });
    expect(named.error).toBeUndefined();
    expect(named.results[0]).toMatchObject({ repo: 'billing', path: 'orders/invoice.ts' });
    // Named apart, the first repository's directory is outside the search.
    const apart = await search(EVERY, {
      query: 'monthly salary',
      path_prefix: join(payroll.root, 'salaries'),
      repos: ['billing'],
    });
    expect(apart.error).toMatch(/is outside the repository being searched/);
  });
});

describe('path_prefix when the first repository is not checked out on the server', () => {
  beforeAll(() => rmSync(payroll.root, { recursive: true, force: true }));

  it('still searches with a path_prefix, for either token, and refuses what leaves the repository', async () => {
    for (const token of [SECOND, EVERY]) {
      const answer = await search(token, { query: 'issue an invoice for an order', path_prefix: 'orders' });
      expect(answer.error).toBeUndefined();
      expect(answer.results[0]).toMatchObject({ repo: 'billing', path: 'orders/invoice.ts' });
      const leaving = await search(token, { query: 'invoice', path_prefix: '../../etc' });
      expect(leaving.error).toMatch(
        /^path_prefix refused: \.\.\/\.\.\/etc leads outside the repository being searched/,
      );
      expectNothingOfOthers(await search(token, { query: 'invoice', path_prefix: '/etc' }));
    }
    // Its recorded directory still bounds an absolute path, with nothing read from disk.
    const inFirst = await search(EVERY, { query: 'monthly salary', path_prefix: join(payroll.root, 'salaries') });
    expect(inFirst.error).toBeUndefined();
    expect(inFirst.results[0]).toMatchObject({ repo: 'payroll', path: 'salaries/compute.ts' });
  });
});
