/** What the CLIs share: commander set up to report usage errors our way, and option parsing. */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { setNativeAddonPath } from '../native/addon.js';
import { readEnvironment } from './environment.js';
import { HelpShown, reportError, UsageError } from './exit.js';

export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/**
 * Help and --version print to stdout and end with code 0; a usage error
 * throws (a CommanderError, exit code 2) instead of exiting, so that the
 * caller reports it like any other error.
 */
export function configure(program: Command, description: string): Command {
  return program
    .description(description)
    .version(VERSION, '-V, --version')
    .helpOption('-h, --help', 'show this help')
    .showSuggestionAfterError()
    .exitOverride((error) => {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.code === 'commander.help'
      )
        throw new HelpShown();
      throw new UsageError(error.message.replace(/^error: /, ''));
    })
    .configureOutput({ writeErr: () => {}, writeOut: (text) => process.stdout.write(text) });
}

/**
 * Parses the arguments and runs the command. Any failure, usage errors
 * included, becomes the exit code and a message on stderr; for a command
 * with --json, when JSON was asked for, the error is JSON on stdout too.
 */
export async function runCommand<Options>(
  program: Command,
  argv: readonly string[],
  run: (args: unknown[], options: Options) => Promise<number>,
): Promise<number> {
  const hasJson = program.options.some((option) => option.long === '--json');
  // Before parsing succeeds, a usage error still honours --json if it was typed.
  let json = hasJson && argv.includes('--json');
  setNativeAddonPath(readEnvironment().nativePath);
  try {
    await program.parseAsync(argv, { from: 'user' });
    const options = program.opts<Options & { json?: boolean }>();
    json = hasJson && Boolean(options.json);
    return await run(program.processedArgs, options);
  } catch (error) {
    return reportError(program.name(), error, json);
  }
}

export function parseInteger(value: string, name: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${name} must be an integer from ${min} to ${max}, not "${value}"`);
  return n;
}

/** A size in bytes, or with a unit: `1048576`, `512k`, `2M`, `1G` (powers of 1,024). */
export function parseSize(value: string, name: string, max = 1 << 30): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmg]?)i?b?\s*$/i.exec(value);
  const bytes = match
    ? Math.round(Number(match[1]) * 1024 ** ' kmg'.indexOf((match[2] || ' ').toLowerCase()))
    : Number.NaN;
  if (!(bytes >= 1 && bytes <= max))
    throw new UsageError(
      `${name} must be a size from 1 byte to ${max / (1 << 20)}M (bytes, or with k, M or G), not "${value}"`,
    );
  return bytes;
}

/**
 * A comma-separated option value, each item made canonical (default:
 * trimmed, lower case); an item not allowed is a usage error naming it and
 * the choices.
 */
export function parseList(
  value: string,
  name: string,
  allowed: readonly string[],
  canonical: (item: string) => string | undefined = (item) => item.trim().toLowerCase(),
): string[] {
  const items = value.split(',').filter((item) => item.trim());
  const unknown = items.filter((item) => !allowed.includes(canonical(item) ?? ''));
  if (unknown.length > 0 || items.length === 0)
    throw new UsageError(
      `${name}: unknown ${unknown.map((item) => item.trim()).join(', ') || 'value'}; choose from ${allowed.join(', ')}`,
    );
  return items.map((item) => canonical(item)!);
}

/**
 * Ends the process with this code once pending output is written. A handle
 * left open (a keep-alive socket to a model server) must not keep a
 * finished command alive.
 */
export function exitWith(code: number): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), 1_000).unref();
}

/**
 * A reader that stops early (`| head`) closes stdout: the command has
 * nothing more to say to anyone, so it ends at once with code 0 instead of
 * dying on the EPIPE of its next write with a stack trace.
 */
export function endQuietlyWhenOutputCloses(
  stream: NodeJS.EventEmitter = process.stdout,
  exit: (code: number) => void = process.exit,
): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') exit(0);
    else throw error;
  });
}
