/**
 * What an agent pays per codebase_search, by the way it calls it, against
 * the Searcher called directly (the baseline, in the same process and run):
 *
 * - the Searcher (k = 8, snippets): the search itself;
 * - CodebaseSearchTool.execute: plus argument checks, the root fence,
 *   secret redaction and the size budget;
 * - oc-vector-mcp: plus JSON-RPC over stdio to a long-lived server (the
 *   SDK's client, as Claude Code or Cursor would call it);
 * - oc-vector-search --json: a process per query, opening the index each time.
 *
 * Also the MCP server's start (spawn to initialized) and its first search,
 * which opens the index. Corpus: the TypeScript compiler's lib/ files up to
 * 10,000 elements, built-in embedder; queries from the corpus.
 *
 *   npm run bench:agent              (add --quick for fewer queries)
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CodebaseSearchTool, Searcher } from '../src/index.js';
import { buildCorpus, libSubset, pickQueries } from './lib/corpus.js';
import { describeMachine } from '../eval/lib/machine.js';
import { writeFigures } from './lib/out.js';
import { markdownTable, PAGES, replaceGeneratedSection } from '../eval/lib/readme.js';
import { ms, percentile, printTable } from '../eval/lib/stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const quick = process.argv.includes('--quick');
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);
const QUERIES = quick ? 40 : 100;
/** Spawning a process per query is slow: fewer of those. */
const CLI_QUERIES = quick ? 10 : 25;
const WARM_UP = 10;
const K = 8;
const ENV = { ...process.env, OCVECTOR_EMBEDDER: 'builtin', OLLAMA_HOST: 'http://127.0.0.1:9' } as Record<
  string,
  string
>;

async function times(queries: readonly string[], call: (query: string) => Promise<unknown>): Promise<number[]> {
  for (const query of queries.slice(0, WARM_UP)) await call(query);
  const out: number[] = [];
  for (const query of queries) {
    const started = performance.now();
    await call(query);
    out.push(performance.now() - started);
  }
  return out;
}

function cliSearch(cwd: string, query: string): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [join(root, 'dist/cli/oc-vector-search.js'), '--json', '-k', String(K), query],
      { cwd, env: ENV },
      (error) => (error ? reject(error) : resolve()),
    ),
  );
}

const work = mkdtempSync(join(tmpdir(), 'ocvector-bench-agent-'));
try {
  const dir = await buildCorpus(join(work, '10k'), { files: libSubset(10_000), count: 1 }, log);
  const indexDir = join(dir, '.ocvector');
  const queries = pickQueries(indexDir, QUERIES);

  const searcher = await Searcher.open({ indexDir });
  let elements = 0;
  const direct = await times(queries, async (query) => {
    elements = (await searcher.search(query, { k: K, snippet: { maxLines: 40, maxChars: 1_600 } })).elements;
  });
  const tool = new CodebaseSearchTool({ searcher });
  const answers: { size: number; truncated: boolean }[] = [];
  const viaTool = await times(queries, async (query) => {
    const output = await tool.execute({ query, k: K });
    answers.push({ size: JSON.stringify(output).length, truncated: output.truncated === true });
  });
  const measured = answers.slice(-queries.length); // not the warm-up
  const sizes = measured.map((answer) => answer.size);
  const truncated = measured.filter((answer) => answer.truncated).length;
  searcher.close();

  const spawned = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(root, 'dist/cli/oc-vector-mcp.js'), '--no-llm', '-q'],
    cwd: dir,
    env: ENV,
  });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  const startMs = performance.now() - spawned;
  const firstStarted = performance.now();
  await client.callTool({ name: 'codebase_search', arguments: { query: queries[0]!, k: K } });
  const firstMs = performance.now() - firstStarted;
  const viaMcp = await times(queries, (query) =>
    client.callTool({ name: 'codebase_search', arguments: { query, k: K } }),
  );
  await client.close();

  const viaCli = await times(queries.slice(0, CLI_QUERIES), (query) => cliSearch(dir, query));

  const base = percentile(direct, 50);
  const header = ['call', 'queries', 'p50', 'p95', 'p50 / Searcher p50'];
  const row = (name: string, values: number[]) => [
    name,
    String(values.length),
    ms(percentile(values, 50)),
    ms(percentile(values, 95)),
    `${(percentile(values, 50) / base).toFixed(2)}x`,
  ];
  const rows = [
    row('Searcher.search (baseline)', direct),
    row('CodebaseSearchTool.execute', viaTool),
    row('oc-vector-mcp (SDK client, stdio)', viaMcp),
    row('oc-vector-search --json (a process per query)', viaCli),
  ];
  const title = `codebase_search, k = ${K}, on ${QUERIES} queries over the TypeScript lib/ subset (built-in embedder; ${describeMachine()})`;
  printTable(title, header, rows);
  const extra = [
    `MCP server start (spawn to initialized): ${ms(startMs, 0)}; its first search, which opens the index: ${ms(firstMs, 1)}.`,
    `Tool answers: median ${Math.round(percentile(sizes, 50)).toLocaleString('en-US')} characters of JSON, largest ${Math.max(...sizes).toLocaleString('en-US')} (budget 12,000); ${truncated} of ${sizes.length} cut to fit.`,
  ];
  process.stdout.write(`\n${extra.join('\n')}\n`);
  const p50 = (values: number[]) => percentile(values, 50);
  writeFigures(
    'agent',
    {
      corpus: 'TypeScript lib/ subset',
      elements,
      queries: QUERIES,
      k: K,
      p50: { searcher: p50(direct), tool: p50(viaTool), mcp: p50(viaMcp), cli: p50(viaCli) },
      mcpStartMs: startMs,
      answerChars: { median: percentile(sizes, 50), largest: Math.max(...sizes) },
    },
    quick,
  );
  if (!quick)
    replaceGeneratedSection(
      join(root, PAGES.performance),
      'agent',
      `${markdownTable(header, rows)}\n\n${extra.join(' ')} ${WARM_UP} warm-up queries first. ${describeMachine()}.`,
    );
} finally {
  rmSync(work, { recursive: true, force: true });
}
