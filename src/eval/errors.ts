/**
 * The evaluation harness's one error: data it was given that it cannot use.
 */
import { OcvectorError } from '../errors.js';

/**
 * BAD_EVAL_SET: an evaluation set (queries.jsonl) is not what it must be;
 * the message names the file, the line and the problem. BAD_BENCHMARK_DATA:
 * a benchmark's repositories, queries or answers file is not what it must be.
 */
export type EvaluationErrorCode = 'BAD_EVAL_SET' | 'BAD_BENCHMARK_DATA';

export class EvaluationError extends OcvectorError<EvaluationErrorCode> {
  override name = 'EvaluationError';
}
