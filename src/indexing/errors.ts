/** The indexing layer's one error class (docs/architecture.md, "Errors"). */
import { OcvectorError } from '../errors.js';

/** WORKER_NOT_BUILT: the analysis worker is not compiled (a checkout without `npm run build:ts`). */
export type IndexingErrorCode = 'WORKER_NOT_BUILT';

export class IndexingError extends OcvectorError<IndexingErrorCode> {
  override name = 'IndexingError';
}
