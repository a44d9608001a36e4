import { OcvectorError } from '../errors.js';

/**
 * Codes carried by every {@link FaissError}. The native addon produces all but
 * `ADDON_LOAD_FAILED`, which the loader raises when the addon cannot be loaded.
 */
export type FaissErrorCode =
  | 'INVALID_ARGUMENT'
  | 'INDEX_CLOSED'
  | 'UNSUPPORTED'
  | 'NOT_TRAINED'
  | 'IO'
  | 'CORRUPT_INDEX'
  | 'GPU'
  | 'OUT_OF_MEMORY'
  | 'FAISS'
  | 'INTERNAL'
  | 'ADDON_LOAD_FAILED';

/**
 * The one error class of the FAISS binding. The native addon constructs it
 * (the class is registered with the addon when it loads), so errors from a
 * worker thread and from argument checks in JavaScript look the same; branch
 * on `code`, not on the message.
 */
export class FaissError extends OcvectorError<FaissErrorCode> {
  override name = 'FaissError';
}

export function invalidArgument(message: string): FaissError {
  return new FaissError(message, 'INVALID_ARGUMENT');
}
