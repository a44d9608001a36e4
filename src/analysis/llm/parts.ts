/**
 * Splits a file too large for the model's context into parts, each within a
 * token budget, cutting at top-level element boundaries where it can and at
 * nested ones where it must. Every line is in exactly one part. With
 * `maxElements`, a part also holds at most that many of the `counted`
 * elements: each is one description to write, and a small model on a CPU
 * writes 5 to 30 tokens a second, so the answer, not the prompt, is what
 * runs past a deadline.
 */
import type { CodeElement, CodeFile } from '../types.js';
import type { PromptPart } from './resources.js';

/** A rough token count for code: about 3.5 characters a token, plus the line-number prefix. */
function estimateTokens(lines: string[], from: number, to: number): number {
  let chars = 0;
  for (let i = from; i < to; i++) chars += lines[i]!.length + 8;
  return Math.ceil(chars / 3.5);
}

export interface PartLimits {
  /** The elements a part's answer describes (default: none counted). */
  counted?: readonly CodeElement[];
  /** The most of them one part holds, where the lines allow (default: no limit). */
  maxElements?: number;
}

export function planParts(
  file: CodeFile,
  lines: string[],
  budgetTokens: number,
  { counted = [], maxElements = Number.POSITIVE_INFINITY }: PartLimits = {},
): PromptPart[] {
  const total = lines.length;
  const startsIn = (range: Range) =>
    counted.filter((e) => e.startLine >= range.first && e.startLine <= range.last).length;
  const fits = (range: Range) =>
    estimateTokens(lines, range.first - 1, range.last) <= budgetTokens && startsIn(range) <= maxElements;
  if (fits({ first: 1, last: total })) return [{ index: 0, count: 1, firstLine: 1, lastLine: total }];

  // Top-level elements first; a unit over budget is split at the elements
  // nested in it, and what is still over budget into runs of lines. What lies
  // between elements (imports, comments) goes with the element that follows.
  const topLevel = rangesBetween(
    [1, ...file.elements.filter((e) => e.parent === '').map((e) => e.startLine)],
    1,
    total,
  );
  const units = topLevel.flatMap((unit) => {
    if (fits(unit)) return [unit];
    const inner = file.elements
      .filter((e) => e.startLine > unit.first && e.startLine <= unit.last)
      .map((e) => e.startLine);
    return rangesBetween([unit.first, ...inner], unit.first, unit.last).flatMap((piece) =>
      fits(piece) ? [piece] : lineRuns(piece, lines, budgetTokens),
    );
  });

  const parts: Range[] = [];
  for (const unit of units) {
    const current = parts.at(-1);
    if (current && fits({ first: current.first, last: unit.last })) current.last = unit.last;
    else parts.push({ ...unit });
  }
  return parts.map((range, index) => ({ index, count: parts.length, firstLine: range.first, lastLine: range.last }));
}

interface Range {
  first: number;
  last: number;
}

/** Consecutive ranges starting at each of `starts`, covering first..last. */
function rangesBetween(starts: number[], first: number, last: number): Range[] {
  const sorted = [...new Set(starts)].filter((line) => line >= first && line <= last).sort((a, b) => a - b);
  return sorted.map((start, i) => ({ first: start, last: (sorted[i + 1] ?? last + 1) - 1 }));
}

/** Splits a range into runs of whole lines, each within the budget (a line is never split). */
function lineRuns(range: Range, lines: string[], budgetTokens: number): Range[] {
  const runs: Range[] = [];
  let first = range.first;
  while (first <= range.last) {
    let last = first;
    while (last < range.last && estimateTokens(lines, first - 1, last + 1) <= budgetTokens) last++;
    runs.push({ first, last });
    first = last + 1;
  }
  return runs;
}
