/**
 * One index of many repositories, as a team runs it (issue 27), on the
 * embedded store: 5 repositories (each a copy of the TypeScript compiler's
 * lib/, ~105,000 elements in all) indexed into one index under their names;
 * a one-file re-index of one repository; searches over every repository and
 * scoped to one, in process; and the same searches over MCP's Streamable
 * HTTP (oc-vector-mcp --http, with a bearer token) from 1, 8 and 32
 * concurrent clients, against the in-process search of the same run.
 *
 *   npm run bench:team              (add --quick for 2 repositories and 1 and 8 clients)
 *   npm run bench:team -- --from <dir> --names a,b,c   real repositories instead (copied from <dir>/<name>)
 *   npm run bench:team -- --store postgres://…          the same on the PostgreSQL store too, in the same run
 *                                                    (--store pglite: PGlite in this process), each figure
 *                                                    beside the embedded store's; into a schema of the
 *                                                    run's own, dropped at the end (--schema <name>: yours, kept)
 *
 * The copies share their documents, so the repositories after the first
 * embed nothing: their vectors come from the embedding cache by content
 * hash (which the first figure shows).
 */
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Indexer, Searcher } from '../src/index.js';
import type { PostgresChoice } from '../src/store/open.js';
import { startPostgres } from '../test/support/postgres.js';
import { serveMcpOverHttp } from '../src/mcp/http.js';
import { askConcurrently } from './lib/mcp-load.js';
import { createCodebaseMcpService } from '../src/mcp/server.js';
import { parseTokens, type TokenTable } from '../src/mcp/tokens.js';
import { libFiles, LIB, pickQueries } from './lib/corpus.js';
import { describeMachine } from '../eval/lib/machine.js';
import { writeFigures } from './lib/out.js';
import { ms, percentile, printTable } from '../eval/lib/stats.js';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    from: { type: 'string' },
    names: { type: 'string' },
    store: { type: 'string' },
    schema: { type: 'string' },
  },
});
const quick = args.quick ?? false;
/** Real repositories to copy in, or copies of the compiler's lib/. */
const FROM = args.from && args.names ? { dir: args.from, names: args.names.split(',') } : undefined;
const REPOS = FROM ? FROM.names.length : quick ? 2 : 5;
const CLIENTS = quick ? [1, 8] : [1, 8, 32];
const QUERIES = 64;
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);
const work = mkdtempSync(join(tmpdir(), 'ocvector-bench-team-'));
const indexDir = join(work, 'team-index');
const TOKEN = 'bench-token-0123456789abcdef0123';

/** Where an index is: the embedded one in indexDir, or the PostgreSQL store. */
type Where = { kind: 'embedded'; indexDir: string } | { kind: 'postgres'; store: PostgresChoice };
const EMBEDDED: Where = { kind: 'embedded', indexDir };
const pglite = args.store === 'pglite' ? await startPostgres({ maxConnections: 40 }) : undefined;
/**
 * A schema of the run's own unless one is named, dropped at the end: a run into a schema a
 * run before it filled rebuilds its repositories into their graphs, one vector at a time
 * (docs/postgres.md), and measures that instead of a first load.
 */
const SCHEMA = args.schema ?? `bench_team_${process.pid}`;
const SHARED: Where | undefined = args.store
  ? { kind: 'postgres', store: { url: pglite?.url ?? args.store, schema: SCHEMA } }
  : undefined;
const STORES: Where[] = SHARED ? [EMBEDDED, SHARED] : [EMBEDDED];

/** The index options that name a store. */
function at(where: Where): { indexDir: string; store?: PostgresChoice } {
  return where.kind === 'embedded' ? { indexDir: where.indexDir } : { indexDir, store: where.store };
}

interface Latency {
  p50: number;
  p95: number;
  errors: number;
  perSecond: number;
}

function summarize(latencies: number[], errors: number, wallMs: number): Latency {
  return {
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    errors,
    perSecond: (latencies.length / wallMs) * 1_000,
  };
}

/** Each repository a directory of its own under its name, indexed into the one index. */
async function indexRepositories(
  where: Where,
): Promise<{ name: string; elements: number; ms: number; computed: number }[]> {
  const runs = [];
  for (let r = 0; r < REPOS; r++) {
    const name = FROM ? FROM.names[r]! : `lib${r}`;
    const dir = join(work, name);
    if (where === EMBEDDED) {
      mkdirSync(dir, { recursive: true });
      if (FROM) cpSync(join(FROM.dir, name), dir, { recursive: true });
      else for (const file of libFiles) cpSync(join(LIB, file), join(dir, file));
    }
    const started = performance.now();
    const summary = await new Indexer({
      path: dir,
      ...at(where),
      ...(where.kind === 'postgres' ? { rebuild: true } : {}),
      repo: name,
      embedder: 'builtin',
      llm: false,
      limits: { maxBytes: 16 << 20 },
    }).run();
    const took = performance.now() - started;
    runs.push({ name, elements: summary.elements.added, ms: took, computed: summary.embeddings.computed });
    log(
      `${where.kind} ${name}: ${summary.elements.added} elements in ${ms(took, 0)} (${summary.embeddings.computed} embedded)`,
    );
  }
  return runs;
}

/** One file of one repository changed, and the repository indexed again: what CI pays for a one-file commit. */
async function oneFileReindex(where: Where, repo: string): Promise<number> {
  const file = join(work, repo, largestFile(join(work, repo)));
  const before = readFileSync(file);
  appendFileSync(file, '\n// one line added by bench/team.ts\n');
  const run = () => new Indexer({ path: join(work, repo), ...at(where), repo, embedder: 'builtin', llm: false }).run();
  try {
    const started = performance.now();
    await run();
    return performance.now() - started;
  } finally {
    writeFileSync(file, before);
    // Back as it was, for the other store's turn.
    await run();
  }
}

/** The repository's largest source file of the compiler's kind (.ts, .js) or any, relative to it. */
function largestFile(dir: string): string {
  const files = (readdirSync(dir, { recursive: true }) as string[]).filter(
    (name) => !name.split('/').some((part) => part.startsWith('.')) && statSync(join(dir, name)).isFile(),
  );
  const sized = files.map((name) => ({ name, size: statSync(join(dir, name)).size })).filter((f) => f.size < 1 << 20);
  return sized.sort((a, b) => b.size - a.size)[0]!.name;
}

async function inProcess(where: Where, queries: string[], repos?: string[]): Promise<Latency> {
  const searcher = await Searcher.open(at(where));
  try {
    for (const query of queries.slice(0, 8)) await searcher.search(query, repos ? { repos } : {});
    const latencies: number[] = [];
    const started = performance.now();
    for (const query of queries) {
      const t = performance.now();
      await searcher.search(query, { k: 10, ...(repos ? { repos } : {}) });
      latencies.push(performance.now() - t);
    }
    return summarize(latencies, 0, performance.now() - started);
  } finally {
    searcher.close();
  }
}

/** `clients` MCP clients at once, each asking every query, one after another. */
async function overHttp(url: string, queries: string[], clients: number): Promise<Latency> {
  const { latencies, errors, wallMs } = await askConcurrently(url, queries, clients, {
    Authorization: `Bearer ${TOKEN}`,
  });
  return summarize(latencies, errors, wallMs);
}

interface StoreFigures {
  store: Where['kind'];
  indexed: Awaited<ReturnType<typeof indexRepositories>>;
  reindexMs: number;
  all: Latency;
  one: Latency;
  http: { clients: number; latency: Latency }[];
}

/** Every figure of one store: indexing, the one-file re-index, searches in process and over MCP HTTP. */
async function measure(where: Where, queries: () => string[]): Promise<StoreFigures> {
  const indexed = await indexRepositories(where);
  const reindexMs = await oneFileReindex(where, indexed[1]?.name ?? indexed[0]!.name);
  const all = await inProcess(where, queries());
  const one = await inProcess(where, queries(), [indexed[0]!.name]);
  const service = createCodebaseMcpService({
    root: join(work, indexed[0]!.name),
    indexDir,
    ...(where.kind === 'postgres' ? { store: where.store } : {}),
  });
  const tokens = (parseTokens({ tokens: [{ name: 'bench', token: TOKEN, repos: ['*'] }] }) as { tokens: TokenTable })
    .tokens;
  const server = await serveMcpOverHttp(service, { port: 0, tokens });
  const http: { clients: number; latency: Latency }[] = [];
  try {
    await overHttp(server.url, queries().slice(0, 8), 1); // the index opened, the first connections made
    for (const clients of CLIENTS) http.push({ clients, latency: await overHttp(server.url, queries(), clients) });
  } finally {
    await server.close();
    await service.close();
  }
  return { store: where.kind, indexed, reindexMs, all, one, http };
}

try {
  let picked: string[] | undefined;
  const queries = () => (picked ??= pickQueries(indexDir, QUERIES));
  const figures: StoreFigures[] = [];
  for (const where of STORES) figures.push(await measure(where, queries));
  const elements = figures[0]!.indexed.reduce((sum, run) => sum + run.elements, 0);

  const machine = describeMachine();
  const server = SHARED ? (pglite ? 'PGlite (WASM, in process)' : 'a PostgreSQL server') : '';
  printTable(
    `Indexing ${REPOS} repositories into one index (${machine}${server ? `; postgres: ${server}` : ''})`,
    ['store', 'repository', 'elements', 'time', 'elements/s', 'embedded'],
    figures.flatMap(({ store, indexed }) =>
      indexed.map((run) => [
        store,
        run.name,
        run.elements.toLocaleString('en-US'),
        ms(run.ms, 0),
        Math.round((run.elements / run.ms) * 1_000).toLocaleString('en-US'),
        run.computed.toLocaleString('en-US'),
      ]),
    ),
  );
  for (const { store, reindexMs } of figures)
    process.stdout.write(
      `\n${store}: one-file re-index (one line appended to its largest file) of one repository in a ${elements.toLocaleString('en-US')}-element index of ${REPOS} repositories: ${ms(reindexMs, 0)}`,
    );
  process.stdout.write('\n');
  const row = (what: string, latency: Latency) => [
    what,
    ms(latency.p50),
    ms(latency.p95),
    String(latency.errors),
    latency.perSecond.toFixed(0),
  ];
  printTable(
    `Search, hybrid, k = 10, ${queries().length} queries per client, ${elements.toLocaleString('en-US')} elements (${machine})`,
    ['how', 'p50', 'p95', 'errors', 'searches/s'],
    figures.flatMap(({ store, indexed, all, one, http }) => [
      row(`${store}: in process, every repository`, all),
      row(`${store}: in process, one repository (${indexed[0]!.name})`, one),
      ...http.map(({ clients, latency }) =>
        row(`${store}: MCP HTTP, ${clients} client${clients === 1 ? '' : 's'}`, latency),
      ),
    ]),
  );
  writeFigures(
    SHARED ? 'team-stores' : 'team',
    {
      repositories: figures[0]!.indexed.map((run) => run.name),
      elements,
      postgres: SHARED ? server : undefined,
      stores: figures.map(({ store, indexed, reindexMs, all, one, http }) => ({
        store,
        indexed,
        reindexMs,
        inProcess: { all, one },
        http,
      })),
    },
    quick,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
  if (SHARED?.kind === 'postgres' && !args.schema && !pglite) await dropSchema(SHARED.store.url, SCHEMA);
  await pglite?.stop();
}

/** Drops the run's own schema from the server (best effort: a failure is said, not thrown). */
async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } catch (error) {
    log(`could not drop the schema ${schema}: ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }
}
