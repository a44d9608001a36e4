/**
 * The limits of a file search, apart from its code: the CLIs and the agent
 * tool's schema read them without loading the file search, which a search
 * of a query never needs.
 */

/** The longest text a file search takes: a long issue, traceback and all (a query takes MAX_QUERY_LENGTH). */
export const MAX_ISSUE_LENGTH = 100_000;
