/**
 * The MCP server under many agents (issue 41): `oc-vector-mcp --http` over
 * an index already built, its searches on the server's own thread (the
 * baseline, --search-workers 0) and on a pool of worker threads, each
 * asked by 1, 8 and 32 concurrent MCP clients in turn, in one run. Each
 * server is its own process (dist/cli, so `npm run build:ts` first), as
 * users run it; the clients run here, on the same cores.
 *
 *   npm run bench:server -- --index <dir>/.ocvector [--root <dir>] [--workers 0,2] [--clients 1,8,32] [--queries 48]
 *
 * Prints searches/s, p50 and p95 by clients and workers, the ratio of each
 * pool's throughput to the baseline's at the same load, and each server's
 * peak RSS.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pickQueries } from './lib/corpus.js';
import { askConcurrently } from './lib/mcp-load.js';
import { markdownTable, PAGES, replaceGeneratedSection } from '../eval/lib/readme.js';
import { IndexStore } from '../src/internal.js';
import { describeMachine } from '../eval/lib/machine.js';
import { writeFigures } from './lib/out.js';
import { percentile, printTable } from '../eval/lib/stats.js';

const { values: args } = parseArgs({
  options: {
    index: { type: 'string' },
    root: { type: 'string' },
    workers: { type: 'string', default: '0,2' },
    clients: { type: 'string', default: '1,8,32' },
    queries: { type: 'string', default: '48' },
  },
});
if (!args.index) {
  process.stderr.write('usage: npm run bench:server -- --index <dir>/.ocvector [--root <dir>] [--workers 0,2]\n');
  process.exit(2);
}
const indexDir = resolve(args.index);
const root = resolve(args.root ?? dirname(indexDir));
const WORKERS = args.workers!.split(',').map(Number);
const CLIENTS = args.clients!.split(',').map(Number);
const QUERIES = Number(args.queries);
const CLI = fileURLToPath(new URL('../dist/cli/oc-vector-mcp.js', import.meta.url));
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

interface Load {
  clients: number;
  /** Cores the server process kept busy, and the clients (this process). */
  serverCores: number;
  clientCores: number;
  searches: number;
  perSecond: number;
  p50: number;
  p95: number;
  errors: number;
}

/** A server on a free port; resolves with its URL once it listens. */
function startServer(workers: number): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [CLI, root, '--db', indexDir, '--http', '0', '--search-workers', String(workers)],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return new Promise((resolveStart, reject) => {
    let said = '';
    const onData = (chunk: Buffer) => {
      said += chunk.toString('utf8');
      const url = /health at (http:\/\/\S+)\/health/.exec(said)?.[1];
      if (url) {
        // The server writes a line per call from here on: read and dropped.
        child.stderr!.off('data', onData);
        child.stderr!.resume();
        resolveStart({ child, url: `${url}/mcp` });
      }
    };
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${said}`)));
  });
}

/** The server's peak resident memory so far (Linux). */
function peakRssMiB(pid: number): number {
  const line = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return line ? Number(line[1]) / 1024 : Number.NaN;
}

function elementCount(dir: string): number {
  const store = IndexStore.open(dir, { readonly: true });
  try {
    return store.elementCount;
  } finally {
    store.close();
  }
}

/** CPU seconds a process has used (Linux: utime + stime of /proc/<pid>/stat). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks, 100 a second on Linux
}

/** `clients` MCP clients at once, each asking every query; the CPU both sides used meanwhile. */
async function load(server: ChildProcess, url: string, queries: string[], clients: number): Promise<Load> {
  const serverCpu = cpuSeconds(server.pid!);
  const clientCpu = process.cpuUsage();
  const { latencies, errors, wallMs } = await askConcurrently(url, queries, clients);
  // Connecting and closing the clients falls inside these CPU figures: a few ms against seconds of searches.
  const serverCores = (cpuSeconds(server.pid!) - serverCpu) / (wallMs / 1_000);
  const { user, system } = process.cpuUsage(clientCpu);
  return {
    clients,
    serverCores,
    clientCores: (user + system) / 1_000 / wallMs,
    searches: latencies.length,
    perSecond: (latencies.length / wallMs) * 1_000,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    errors,
  };
}

const queries = pickQueries(indexDir, QUERIES);
const runs: { workers: number; loads: Load[]; peakRssMiB: number }[] = [];
for (const workers of WORKERS) {
  const { child, url } = await startServer(workers);
  try {
    // Every worker warmed on every query (their caches of common terms, the database pages), as in a server that has run a while.
    await load(child, url, queries, Math.max(1, workers));
    const loads: Load[] = [];
    for (const clients of CLIENTS) {
      loads.push(await load(child, url, queries, clients));
      log(`${workers} workers, ${clients} clients: ${loads.at(-1)!.perSecond.toFixed(1)} searches/s`);
    }
    runs.push({ workers, loads, peakRssMiB: peakRssMiB(child.pid!) });
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => child.once('exit', done));
  }
}

const baseline = runs[0]!;
const header = [
  'search workers',
  'clients',
  'searches/s',
  'p50',
  'p95',
  'errors',
  `throughput vs ${baseline.workers} workers`,
  'cores: server, clients',
  'server peak RSS',
];
const rows = runs.flatMap(({ workers, loads, peakRssMiB }) =>
  loads.map((figures, i) => [
    workers === 0 ? '0 (server thread)' : String(workers),
    String(figures.clients),
    figures.perSecond.toFixed(1),
    `${figures.p50.toFixed(0)} ms`,
    `${figures.p95.toFixed(0)} ms`,
    String(figures.errors),
    `${(figures.perSecond / baseline.loads[i]!.perSecond).toFixed(2)}x`,
    `${figures.serverCores.toFixed(2)}, ${figures.clientCores.toFixed(2)}`,
    `${peakRssMiB.toFixed(0)} MiB`,
  ]),
);
const title = `oc-vector-mcp --http, codebase_search k = 10, ${queries.length} queries per client, ${elementCount(indexDir).toLocaleString('en-US')} elements of ${basename(root)}`;
printTable(`${title} (${describeMachine()})`, header, rows);
writeFigures('server', { root, indexDir, machine: describeMachine(), runs });
replaceGeneratedSection(
  PAGES.performance,
  'server',
  `${markdownTable(header, rows)}\n\n${title}; each server warmed on every query first. ${describeMachine()}.`,
);
