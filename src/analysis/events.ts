/** What analysis reports while it works. The library emits these; the CLIs render them. */
import type { SkipReason } from './types.js';

export type LlmFallbackReason =
  | 'timeout'
  | 'unreachable'
  | 'server-error'
  /** The server does not have the model (`ollama pull` it): no more calls in this run. */
  | 'model-missing'
  /** The server answered, but not with a usable HTTP body (not JSON, or too large). */
  | 'invalid-response'
  | 'invalid-json'
  | 'schema-violation'
  | 'circuit-open'
  /** The answer does not fit the file: most of its elements match nothing in the syntax tree. */
  | 'mismatch'
  | 'aborted';

export type AnalysisEvent =
  | { type: 'skipped'; path: string; reason: SkipReason; detail: string }
  | { type: 'warning'; path: string; message: string }
  /**
   * The model is to be asked about a file (its answers are not cached): so many calls, one per
   * part with something to ask. With the answers that follow, what a run's progress counts.
   */
  | { type: 'llm-asking'; path: string; calls: number }
  /** The model's answer was used: elements matched, and those dropped (not in the syntax tree). */
  | { type: 'llm-enriched'; path: string; matched: number; dropped: number; parts: number; cached: boolean }
  /**
   * One model call's answer (not a cache hit): whether it was schema-valid JSON, how long it
   * took, and the tokens the server counted where it says (prompt read, answer written).
   */
  | {
      type: 'llm-answer';
      path: string;
      part: number;
      attempt: number;
      outcome: 'valid' | 'invalid-json' | 'schema-violation';
      seconds: number;
      promptTokens?: number;
      outputTokens?: number;
    }
  /** The model could not be used for this file: the AST result stands. */
  | { type: 'llm-fallback'; path: string; reason: LlmFallbackReason; detail: string }
  /** Too many failures in a row: no more model calls in this run. */
  | { type: 'llm-circuit-open'; failures: number; detail: string };
