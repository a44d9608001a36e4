/**
 * The one base error of ocvector, in the style of better-sqlite3's
 * SqliteError: a message for people and a `code` in UPPER_SNAKE case for
 * programs. Each layer has one subclass (FilesError, FaissError,
 * AnalysisError, EmbedderError, StoreError, SearchError, IndexingError,
 * EvaluationError, UsageError) with the union of the codes it may carry, so that
 * callers branch on `instanceof OcvectorError` and `code`, never on the
 * message. Nothing throws this base class itself (test/errors.test.ts);
 * docs/architecture.md ("Errors") lists the classes and their codes.
 */
export class OcvectorError<Code extends string = string> extends Error {
  override name = 'OcvectorError';
  readonly code: Code;

  constructor(message: string, code: Code, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
