export { EvaluationError } from './errors.js';
export type { EvaluationErrorCode } from './errors.js';
export { loadEvalSet, parseEvalSet } from './set.js';
export type { EvalQuery, ExpectedElement } from './set.js';
export { evaluate, EVAL_MODES, EVAL_DEPTH } from './evaluate.js';
export type { EvalReport, EvaluateOptions, ModeScores, QueryOutcome } from './evaluate.js';
export { firstRank, scoreRanks } from './metrics.js';
export type { RetrievalScores } from './metrics.js';
