/**
 * oc-vector-mcp [root]: serves the code index to MCP clients (Claude Code,
 * Cursor, ...) over stdio. stdout carries the protocol and nothing else;
 * a line per call goes to stderr.
 */
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { defaultIndexDir, findRoot } from '../files/root.js';
import { createCodebaseMcpServer } from '../mcp/server.js';
import { findIndex } from '../search/find-index.js';
import { DEFAULT_TOOL_BUDGET } from '../tool/budget.js';
import { analysisChoice } from './analysis-choice.js';
import { embedderChoice, EMBEDDER_KINDS, type EmbedderKind, OPENAI_BASE_URL_HELP } from './embedder-choice.js';
import { ollamaOptions, openAIOptions, readEnvironment } from './environment.js';
import { EXIT } from './exit.js';
import { configure, parseInteger, runCommand, VERSION } from './program.js';

interface McpCliOptions {
  db?: string;
  llm?: boolean | 'ollama' | 'openai';
  model?: string;
  embedder?: EmbedderKind;
  embeddingModel?: string;
  ollamaHost?: string;
  openaiBaseUrl?: string;
  maxOutput: string;
  quiet?: boolean;
}

const PROGRAM = 'oc-vector-mcp';

export async function mcpMain(argv: readonly string[]): Promise<number> {
  const program = configure(
    new Command(PROGRAM),
    'Serve the code index over MCP (stdio): codebase_search, index_status and reindex.',
  )
    .argument('[root]', 'the directory to serve (default: the root of the index at or above the current directory)')
    .option('--db <dir>', 'index directory (default: <root>/.ocvector)')
    .option('--no-llm', 'reindex with syntax-tree analysis only')
    .addOption(
      new Option(
        '--llm <kind>',
        "reindex's analysis model server: ollama, or openai (with --model and --openai-base-url)",
      ).choices(['ollama', 'openai']),
    )
    .option('--model <name>', 'analysis model for reindex (default: qwen2.5-coder when the Ollama server has it)')
    .addOption(new Option('--embedder <kind>', 'embedder when reindex creates the index').choices([...EMBEDDER_KINDS]))
    .option(
      '--embedding-model <name>',
      'embedding model when reindex creates the index (needed with --embedder openai)',
    )
    .option('--ollama-host <url>', 'Ollama server (default: OLLAMA_HOST, else http://127.0.0.1:11434)')
    .option('--openai-base-url <url>', OPENAI_BASE_URL_HELP)
    .option(
      '--max-output <chars>',
      'size budget of a codebase_search answer, in characters of JSON',
      String(DEFAULT_TOOL_BUDGET.maxOutputChars),
    )
    .option('-q, --quiet', 'no log lines on stderr');

  return runCommand<McpCliOptions>(program, argv, (args, options) => serve(args[0] as string | undefined, options));
}

async function serve(rootArgument: string | undefined, options: McpCliOptions): Promise<number> {
  const log = (line: string) => {
    if (!options.quiet) process.stderr.write(`${PROGRAM}: ${line}\n`);
  };
  // Only the protocol may reach stdout: anything a dependency prints goes to stderr.
  console.log = console.info = console.debug = (...parts: unknown[]) => console.error(...parts);
  const maxOutputChars = parseInteger(options.maxOutput, '--max-output', 1_000, 10_000_000);
  const env = readEnvironment();
  const ollama = ollamaOptions(options.ollamaHost, env);
  const openai = openAIOptions(options.openaiBaseUrl, env);
  const embedder = embedderChoice(options, env);

  const root = rootArgument
    ? findRoot(resolve(rootArgument))
    : (findIndex(process.cwd())?.root ?? findRoot(process.cwd()));
  const indexDir = options.db ? resolve(options.db) : defaultIndexDir(root);
  const llm = await analysisChoice(options, { ollamaHost: ollama.host, openaiBaseUrl: openai.baseUrl }, env, log);
  const server = createCodebaseMcpServer({
    root,
    indexDir,
    indexer: { ...(llm === undefined ? {} : { llm }), ...(embedder ? { embedder } : {}), ollama, openai },
    search: { budget: { maxOutputChars }, searcherOptions: { ollama, openai } },
    version: VERSION,
    onLog: log,
  });

  await server.mcp.connect(new StdioServerTransport());
  // The client ends the session by closing our stdin (or by a signal).
  const closed = new Promise<void>((resolveClosed) => {
    server.mcp.server.onclose = () => resolveClosed();
    process.stdin.once('end', () => resolveClosed());
    process.once('SIGINT', () => resolveClosed());
    process.once('SIGTERM', () => resolveClosed());
  });
  log(`serving ${root} (index ${indexDir}); tools: ${server.tools.map((tool) => tool.name).join(', ')}`);
  await closed;
  await server.close();
  return EXIT.OK;
}
