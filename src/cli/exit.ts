/**
 * Exit codes shared by the CLIs, and the one place errors become a message
 * on stderr (or a JSON error object on stdout with --json) and a code.
 */
import { CommanderError } from 'commander';
import { OcvectorError } from '../errors.js';
import { readEnvironment } from './environment.js';
import { StoreError } from '../store/errors.js';
import { SearchError } from '../search/errors.js';
import { EmbedderError } from '../vector/embedder.js';

export const EXIT = {
  OK: 0,
  /** The work failed: an unreadable index, an embedder that stopped the run or a vector search, a lock held by another indexer. */
  FAILURE: 1,
  /** Bad arguments or options. */
  USAGE: 2,
  /** There is no index here yet (search, status). */
  NO_INDEX: 3,
  INTERRUPTED: 130,
} as const;

/** A usage error found after commander's own parsing (a bad -k, an unknown language). */
export class UsageError extends OcvectorError<'USAGE'> {
  override name = 'UsageError';

  constructor(message: string) {
    super(message, 'USAGE');
  }
}

/** Help or the version was printed: nothing failed. */
export class HelpShown extends Error {
  override readonly name = 'HelpShown';
}

function exitCodeFor(error: unknown): number {
  if (error instanceof HelpShown) return EXIT.OK;
  if (error instanceof UsageError || error instanceof CommanderError) return EXIT.USAGE;
  if (error instanceof SearchError)
    return error.code === 'BAD_QUERY' || error.code === 'BAD_OPTION' || error.code === 'UNKNOWN_REPO'
      ? EXIT.USAGE
      : EXIT.FAILURE;
  if (error instanceof StoreError && error.code === 'NOT_FOUND') return EXIT.NO_INDEX;
  // An embedder that needs an option the user has not given (the OpenAI-compatible server's base URL).
  if (error instanceof EmbedderError && error.code === 'NOT_CONFIGURED') return EXIT.USAGE;
  // A repository named that is not there, a name no repository can have, or one taken by another directory.
  if (
    error instanceof StoreError &&
    (error.code === 'UNKNOWN_REPO' || error.code === 'BAD_NAME' || error.code === 'NAME_TAKEN')
  )
    return EXIT.USAGE;
  if (isAbort(error)) return EXIT.INTERRUPTED;
  return EXIT.FAILURE;
}

function isAbort(error: unknown): boolean {
  return (
    (error as { name?: string })?.name === 'AbortError' || (error instanceof EmbedderError && error.code === 'ABORTED')
  );
}

/** A one-line description for stderr: our errors' messages are written to be read as they are. */
function describeError(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
}

/** Reports the error and sets the exit code; never throws. */
export function reportError(program: string, error: unknown, json: boolean): number {
  const code = exitCodeFor(error);
  if (error instanceof HelpShown) return code;
  const message = code === EXIT.INTERRUPTED ? 'interrupted' : describeError(error);
  if (json) {
    const kind =
      code === EXIT.USAGE
        ? 'usage'
        : code === EXIT.NO_INDEX
          ? 'no-index'
          : code === EXIT.INTERRUPTED
            ? 'interrupted'
            : 'failure';
    process.stdout.write(`${JSON.stringify({ error: { kind, message } })}\n`);
  }
  process.stderr.write(`${program}: ${message}\n`);
  if (readEnvironment().debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  return code;
}
