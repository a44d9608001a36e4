#!/usr/bin/env node
/**
 * One command for everything: `ocvector index|search|status|mcp|eval …`,
 * each the same program as its `oc-vector-*` bin (`ocvector status` is
 * `oc-vector-index --status`), so that `npx ocvector …` works once the
 * package is installed.
 */
import { evalMain } from './eval-command.js';
import { EXIT } from './exit.js';
import { indexMain } from './index-command.js';
import { mcpMain } from './mcp-command.js';
import { endQuietlyWhenOutputCloses, exitWith, VERSION } from './program.js';
import { searchMain } from './search-command.js';

const SUBCOMMANDS: Readonly<Record<string, { summary: string; run: (argv: readonly string[]) => Promise<number> }>> = {
  index: { summary: 'index a directory or files (oc-vector-index)', run: indexMain },
  search: { summary: 'search an index (oc-vector-search)', run: searchMain },
  refs: {
    summary: "a symbol's definitions and every line that uses it (oc-vector-search --refs)",
    run: (argv) => searchMain(['--refs', ...argv]),
  },
  status: {
    summary: 'what is indexed, and which files are stale (oc-vector-index --status)',
    run: (argv) => indexMain(['--status', ...argv]),
  },
  mcp: { summary: 'serve the index to agents over MCP: stdio, or HTTP with --http (oc-vector-mcp)', run: mcpMain },
  eval: { summary: 'score search on a set of queries (oc-vector-eval)', run: evalMain },
};

async function ocvectorMain(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '-V' || name === '--version') {
    process.stdout.write(`${VERSION}\n`);
    return EXIT.OK;
  }
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    process.stdout.write(usage());
    return EXIT.OK;
  }
  const subcommand = SUBCOMMANDS[name];
  if (!subcommand) {
    process.stderr.write(
      `ocvector: unknown command "${name}"; choose from ${Object.keys(SUBCOMMANDS).join(', ')} (ocvector --help)\n`,
    );
    return EXIT.USAGE;
  }
  return subcommand.run(rest);
}

function usage(): string {
  const width = Math.max(...Object.keys(SUBCOMMANDS).map((name) => name.length));
  const lines = Object.entries(SUBCOMMANDS).map(([name, { summary }]) => `  ${name.padEnd(width)}  ${summary}`);
  return `Usage: ocvector <command> [options]\n\nLocal semantic code search.\n\nCommands:\n${lines.join('\n')}\n\nocvector <command> --help shows a command's options.\n`;
}

endQuietlyWhenOutputCloses();
exitWith(await ocvectorMain(process.argv.slice(2)));
