/**
 * The files layer's errors: finding the root, screening given paths, asking
 * git what changed. PathOutsideRootError is the one error for "this path is
 * outside the root", wherever it is found (a scan, the Indexer, the agent
 * tool, the MCP server): it lives here, the lowest layer that throws it.
 */
import { OcvectorError } from '../errors.js';

/**
 * PATH_NOT_FOUND: the path to index does not exist. OUTSIDE_ROOT: a path
 * names something outside the root (always a {@link PathOutsideRootError}).
 * BAD_REVISION: `--since` was not given a git revision. GIT_MISSING: git is
 * not installed. GIT_FAILED: git ran and failed (its message follows).
 */
export type FilesErrorCode = 'PATH_NOT_FOUND' | 'OUTSIDE_ROOT' | 'BAD_REVISION' | 'GIT_MISSING' | 'GIT_FAILED';

export class FilesError<Code extends FilesErrorCode = FilesErrorCode> extends OcvectorError<Code> {
  override name = 'FilesError';
}

/** A path outside the root: by `..`, as an absolute path elsewhere, or through a symbolic link. */
export class PathOutsideRootError extends FilesError<'OUTSIDE_ROOT'> {
  override name = 'PathOutsideRootError';

  constructor(message: string) {
    super(message, 'OUTSIDE_ROOT');
  }
}
