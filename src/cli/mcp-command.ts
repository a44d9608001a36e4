/**
 * oc-vector-mcp [root]: serves the code index to MCP clients (Claude Code,
 * Cursor, ...) over stdio, or with --http to many clients over Streamable
 * HTTP (with --tokens, beyond this machine). On stdio, stdout carries the
 * protocol and nothing else; a line per call goes to stderr either way.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { availableParallelism } from 'node:os';
import { Command, Option } from 'commander';
import { MAX_SEARCH_WORKERS } from '../search/pool/searcher-pool.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { defaultIndexDir, findRoot } from '../files/root.js';
import { isLoopback, serveMcpOverHttp } from '../mcp/http.js';
import { createCodebaseMcpServer, createCodebaseMcpService, type CodebaseMcpServerOptions } from '../mcp/server.js';
import { logLine } from '../mcp/log-line.js';
import { MCP_TOOLS } from '../mcp/registry.js';
import { readTokensFile, type TokenTable } from '../mcp/tokens.js';
import { findIndex } from '../search/find-index.js';
import { DEFAULT_TOOL_BUDGET } from '../tool/budget.js';
import { analysisChoice, analysisKinds, analysisKindsHelp } from './analysis-choice.js';
import {
  embedderChoice,
  embedderKinds,
  type EmbedderKind,
  embeddingModelNeededWith,
  OPENAI_BASE_URL_HELP,
} from './embedder-choice.js';
import { ollamaOptions, openAIOptions, readEnvironment } from './environment.js';
import { EXIT, UsageError } from './exit.js';
import { configure, parseInteger, runCommand, VERSION } from './program.js';
import { addDeviceOption, addStoreOptions, type DeviceChoice, deviceOptions, storeChoice } from './store-choice.js';
import { withoutPassword } from '../store/location.js';
import { DEFAULT_POSTGRES_SCHEMA } from '../store/open.js';

interface McpCliOptions {
  db?: string;
  llm?: boolean | 'ollama' | 'openai';
  model?: string;
  embedder?: EmbedderKind;
  embeddingModel?: string;
  ollamaHost?: string;
  openaiBaseUrl?: string;
  maxOutput: string;
  http?: string;
  host?: string;
  tokens?: string;
  allowReadableTokens?: boolean;
  quiet?: boolean;
  store?: string;
  schema?: string;
  device?: DeviceChoice;
  searchWorkers?: string;
}

const PROGRAM = 'oc-vector-mcp';

export async function mcpMain(argv: readonly string[]): Promise<number> {
  const program = configure(
    new Command(PROGRAM),
    `Serve the code index over MCP (stdio, or Streamable HTTP with --http): ${toolNames()}.`,
  )
    .argument('[root]', 'the directory to serve (default: the root of the index at or above the current directory)')
    .option('--db <dir>', 'index directory (default: <root>/.ocvector)');
  addDeviceOption(addStoreOptions(program))
    .option('--no-llm', 'reindex with syntax-tree analysis only')
    .addOption(
      new Option('--llm <kind>', `reindex's analysis model server: ${analysisKindsHelp()}`).choices(analysisKinds()),
    )
    .option('--model <name>', 'analysis model for reindex (default: qwen2.5-coder when the Ollama server has it)')
    .addOption(new Option('--embedder <kind>', 'embedder when reindex creates the index').choices(embedderKinds()))
    .option(
      '--embedding-model <name>',
      `embedding model when reindex creates the index (needed with ${embeddingModelNeededWith()})`,
    )
    .option('--ollama-host <url>', 'Ollama server (default: OLLAMA_HOST, else http://127.0.0.1:11434)')
    .option('--openai-base-url <url>', OPENAI_BASE_URL_HELP)
    .option(
      '--max-output <chars>',
      'size budget of a codebase_search answer, in characters of JSON',
      String(DEFAULT_TOOL_BUDGET.maxOutputChars),
    )
    .option(
      '--http <port>',
      'serve MCP over Streamable HTTP at http://<host>:<port>/mcp instead of stdio (0: any free port)',
    )
    .option(
      '--host <addr>',
      'the address --http listens on (default: 127.0.0.1; any other than loopback needs --tokens)',
    )
    .option(
      '--tokens <file>',
      'with --http: the bearer tokens accepted, each with its repositories and write access (JSON)',
    )
    .option(
      '--allow-readable-tokens',
      'serve a tokens file that other users may read or change (refused by default: chmod 600 it)',
    )
    .option(
      '--search-workers <n>',
      'searches on n worker threads, which share one copy of the vector index (default with --http: one per core, on the CPU; 0: on the server thread)',
    )
    .option('-q, --quiet', 'no log lines on stderr');

  return runCommand<McpCliOptions>(program, argv, (args, options) => serve(args[0] as string | undefined, options));
}

async function serve(rootArgument: string | undefined, options: McpCliOptions): Promise<number> {
  // One line per event whatever it carries: control characters escaped, the length bounded (log-line.ts).
  const log = (line: string) => {
    if (!options.quiet) process.stderr.write(`${PROGRAM}: ${logLine(line)}\n`);
  };
  // Only the protocol may reach stdout: anything a dependency prints goes to stderr.
  console.log = console.info = console.debug = (...parts: unknown[]) => console.error(...parts);
  const maxOutputChars = parseInteger(options.maxOutput, '--max-output', 1_000, 10_000_000);
  const http = httpChoice(options);
  const env = readEnvironment();
  const ollama = ollamaOptions(options.ollamaHost, env);
  const openai = openAIOptions(options.openaiBaseUrl, env);
  const embedder = embedderChoice(options, env);

  const root = rootArgument
    ? findRoot(existingRoot(rootArgument))
    : (findIndex(process.cwd())?.root ?? findRoot(process.cwd()));
  const indexDir = options.db ? resolve(options.db) : defaultIndexDir(root);
  const store = storeChoice(options, env);
  const llm = await analysisChoice(options, { ollama, openai }, env, log);
  const serverOptions: CodebaseMcpServerOptions = {
    root,
    indexDir,
    ...(store ? { store } : {}),
    indexer: {
      ...(llm === undefined ? {} : { llm }),
      ...(embedder ? { embedder } : {}),
      embedderOptions: { ollama, openai },
    },
    search: {
      budget: { maxOutputChars },
      searchWorkers: searchWorkersChoice(options, http !== undefined),
      searcherOptions: { embedderOptions: { ollama, openai }, ...deviceOptions(options.device, store) },
    },
    version: VERSION,
    onLog: log,
  };
  return http ? serveHttp(serverOptions, http, log) : serveStdio(serverOptions, log);
}

/** The root argument, resolved: one that is not there is a usage error (exit 2), as for oc-vector-index. */
function existingRoot(argument: string): string {
  const path = resolve(argument);
  if (!existsSync(path)) throw new UsageError(`${argument}: no such file or directory`);
  return path;
}

/**
 * Worker threads for searches: by default one per core for --http (many
 * agents at once) on the CPU, none for stdio (one agent) or a GPU (each
 * worker would copy the index to the device).
 */
function searchWorkersChoice(options: McpCliOptions, http: boolean): number {
  if (options.searchWorkers !== undefined)
    return parseInteger(options.searchWorkers, '--search-workers', 0, MAX_SEARCH_WORKERS);
  const onCpu = options.device === undefined || options.device === 'cpu';
  const cores = availableParallelism();
  return http && onCpu && cores > 1 ? Math.min(cores, MAX_SEARCH_WORKERS) : 0;
}

function searchThreads(workers: number): string {
  return workers === 0
    ? 'searches on the server thread'
    : `searches on ${workers} worker thread${workers === 1 ? '' : 's'}`;
}

interface HttpChoice {
  port: number;
  host: string;
  tokens?: TokenTable;
}

/** --http, --host and --tokens checked together: a usage error names what is wrong. */
function httpChoice(options: McpCliOptions): HttpChoice | undefined {
  if (options.allowReadableTokens && options.tokens === undefined)
    throw new UsageError('--allow-readable-tokens is about the file of --tokens <file>: give --tokens too');
  if (options.http === undefined) {
    const stray = options.host !== undefined ? '--host' : options.tokens !== undefined ? '--tokens' : undefined;
    if (stray) throw new UsageError(`${stray} needs --http <port>`);
    return undefined;
  }
  const port = parseInteger(options.http, '--http', 0, 65_535);
  const host = options.host ?? '127.0.0.1';
  if (options.tokens === undefined) {
    if (!isLoopback(host))
      throw new UsageError(
        `--host ${host} is not a loopback address: serving beyond this machine needs --tokens <file> (each client then sends Authorization: Bearer <token>)`,
      );
    return { port, host };
  }
  const read = readTokensFile(resolve(options.tokens), { allowReadable: options.allowReadableTokens === true });
  if ('problem' in read) throw new UsageError(`--tokens: ${read.problem}`);
  return { port, host, tokens: read.tokens };
}

async function serveStdio(serverOptions: CodebaseMcpServerOptions, log: (line: string) => void): Promise<number> {
  const server = createCodebaseMcpServer(serverOptions);
  await server.mcp.connect(new StdioServerTransport());
  // The client ends the session by closing our stdin (or by a signal).
  const closed = new Promise<void>((resolveClosed) => {
    server.mcp.server.onclose = () => resolveClosed();
    process.stdin.once('end', () => resolveClosed());
    process.once('SIGINT', () => resolveClosed());
    process.once('SIGTERM', () => resolveClosed());
  });
  log(
    `serving ${serverOptions.root} (index ${where(serverOptions)}); tools: ${server.tools.map((tool) => tool.name).join(', ')}`,
  );
  await closed;
  await server.close();
  return EXIT.OK;
}

async function serveHttp(
  serverOptions: CodebaseMcpServerOptions,
  { port, host, tokens }: HttpChoice,
  log: (line: string) => void,
): Promise<number> {
  const service = createCodebaseMcpService(serverOptions);
  let server: Awaited<ReturnType<typeof serveMcpOverHttp>>;
  try {
    server = await serveMcpOverHttp(service, {
      port,
      host,
      ...(tokens ? { tokens } : {}),
      version: VERSION,
      onLog: log,
    });
  } catch (error) {
    await service.close();
    process.stderr.write(`${PROGRAM}: cannot listen on ${host}:${port}: ${(error as Error).message}\n`);
    return EXIT.FAILURE;
  }
  // Always said, -q or not: with port 0 it is the only way to learn the port.
  process.stderr.write(`${PROGRAM}: listening on ${server.url}\n`);
  log(
    `serving ${serverOptions.root} (index ${where(serverOptions)}) to ${tokens ? `${tokens.size} tokens` : 'this machine only, without tokens'}; ${searchThreads(serverOptions.search?.searchWorkers ?? 0)}; health at ${server.url.replace(/\/mcp$/, '/health')}`,
  );
  await new Promise<void>((resolveClosed) => {
    process.once('SIGINT', () => resolveClosed());
    process.once('SIGTERM', () => resolveClosed());
  });
  log('closing: letting calls under way finish');
  await server.close();
  await service.close();
  return EXIT.OK;
}

/** Where the served index is, for the log: the directory, or the shared store without its password. */
function where(options: CodebaseMcpServerOptions): string {
  return options.store
    ? `${withoutPassword(options.store.url)}, schema ${options.store.schema ?? DEFAULT_POSTGRES_SCHEMA}`
    : String(options.indexDir);
}

/** The registered tools' names, as a sentence lists them (`a, b and c`): the help says what the server serves. */
function toolNames(): string {
  const names = MCP_TOOLS.map((tool) => tool.name);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names.join('');
}
