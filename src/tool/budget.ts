/**
 * Keeps a tool's answer within a size budget. A model's context is the
 * scarce resource of an agent: an answer that floods it crowds out the
 * task. Results are kept best first; when the next one does not fit whole,
 * its snippet is shortened, then dropped, then the list ends.
 */
import type { CodebaseSearchHit, CodebaseSearchOutput } from './schema.js';

export interface ToolBudget {
  /** The whole answer, as JSON, in characters. Default 12,000 (about 3,000 tokens). */
  maxOutputChars: number;
  /** Each snippet, in characters. Default 1,600. */
  snippetMaxChars: number;
  /** Each snippet, in lines. Default 40. */
  snippetMaxLines: number;
}

export const DEFAULT_TOOL_BUDGET: ToolBudget = { maxOutputChars: 12_000, snippetMaxChars: 1_600, snippetMaxLines: 40 };

/** Room for the envelope and a note, so that one result always fits. */
const MIN_OUTPUT_CHARS = 1_000;

export function resolveBudget(budget: Partial<ToolBudget> = {}): ToolBudget {
  const resolved = { ...DEFAULT_TOOL_BUDGET, ...budget };
  const check = (name: keyof ToolBudget, min: number) => {
    const value = resolved[name];
    if (!Number.isInteger(value) || value < min)
      throw new RangeError(`budget.${name} must be an integer of at least ${min}, not ${String(value)}`);
  };
  check('maxOutputChars', MIN_OUTPUT_CHARS);
  check('snippetMaxChars', 1);
  check('snippetMaxLines', 1);
  return resolved;
}

/** Room kept for the note that says what was cut (added after fitting); longer notes are cut to it. */
export const MAX_NOTE_CHARS = 400;

/** Messages can quote paths and server errors of any length; the answer's size must not depend on them. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * The hits that fit in `maxChars` of JSON, best first, with `truncated`
 * set when any were cut. The caller's note must stay under MAX_NOTE_CHARS.
 */
export function fitToBudget(
  hits: readonly CodebaseSearchHit[],
  fallbackUsed: boolean,
  maxChars: number,
): CodebaseSearchOutput {
  const limit = maxChars - MAX_NOTE_CHARS - 20;
  const results: CodebaseSearchHit[] = [];
  let size = JSON.stringify({ results: [], fallback_used: fallbackUsed, truncated: true }).length;
  let truncated = false;
  for (const hit of hits) {
    const separator = results.length > 0 ? 1 : 0;
    const fitted = fitHit(hit, limit - size - separator);
    if (!fitted) {
      truncated = true;
      break;
    }
    if (fitted.hit !== hit) truncated = true;
    results.push(fitted.hit);
    size += fitted.size + separator;
  }
  return truncated ? { results, fallback_used: fallbackUsed, truncated } : { results, fallback_used: fallbackUsed };
}

/**
 * The hit as it is, with a shorter snippet, or without one, and its JSON size; then without its
 * score's terms (`explain`), which say why it ranked, not where the code is; undefined when even
 * that is too big.
 */
function fitHit(hit: CodebaseSearchHit, room: number): { hit: CodebaseSearchHit; size: number } | undefined {
  const whole = JSON.stringify(hit).length;
  if (whole <= room) return { hit, size: whole };
  const bare = { ...hit, snippet: null };
  const bareSize = JSON.stringify(bare).length;
  if (bareSize > room) return hit.explain ? fitHit(withoutExplanation(bare), room) : undefined;
  if (hit.snippet === null) return { hit: bare, size: bareSize };
  // Whole lines while they fit (JSON escapes make the size of a line differ from its length).
  const lines = hit.snippet.split('\n');
  const marker = '\n… (cut to fit the size budget)';
  for (let keep = lines.length - 1; keep > 0; keep--) {
    const shorter = { ...hit, snippet: lines.slice(0, keep).join('\n') + marker };
    const size = JSON.stringify(shorter).length;
    if (size <= room) return { hit: shorter, size };
  }
  return { hit: bare, size: bareSize };
}

function withoutExplanation({ explain: _, ...hit }: CodebaseSearchHit): CodebaseSearchHit {
  return hit;
}
