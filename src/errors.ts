/**
 * The one base error of ocvector, in the style of better-sqlite3's
 * SqliteError: a message for people and a `code` in UPPER_SNAKE case for
 * programs. Each layer keeps its subclass (StoreError, SearchError,
 * EmbedderError, FaissError, ...) with the codes it may carry, so that
 * callers branch on `instanceof OcvectorError` and `code`, never on the
 * message.
 */
export class OcvectorError<Code extends string = string> extends Error {
  override name = 'OcvectorError';
  readonly code: Code;

  constructor(message: string, code: Code, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
