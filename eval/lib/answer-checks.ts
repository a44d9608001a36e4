/**
 * A model's answers for a file against the syntax tree's elements of that file: each answered
 * element is matched (the name the tree has, near the line the tree has: reconcile.ts's rule),
 * cited at the wrong lines (a name the file defines, too far from every one of them), or
 * invented (a name the file does not define); and how many of the tree's elements gained a
 * description from it.
 */
import type { CodeFile } from '../../src/analysis/types.js';
import { reconcile } from '../../src/analysis/llm/reconcile.js';
import type { ModelAnswer } from '../../src/analysis/llm/resources.js';

export interface AnswerCounts {
  filesAnswered: number;
  answered: number;
  matched: number;
  wrongLines: number;
  invented: number;
  emptyDescriptions: number;
  /** The tree's elements with no doc comment of their own: those a model's description is for. */
  undocumented: number;
  described: number;
}

export function classifyAnswers(files: { file: CodeFile; answers: ModelAnswer[] | undefined }[]): AnswerCounts {
  const counts: AnswerCounts = {
    filesAnswered: 0,
    answered: 0,
    matched: 0,
    wrongLines: 0,
    invented: 0,
    emptyDescriptions: 0,
    undocumented: 0,
    described: 0,
  };
  for (const { file, answers } of files) {
    if (!answers) continue;
    counts.filesAnswered++;
    const names = new Set(file.elements.map((element) => element.name));
    const result = reconcile(file, answers);
    counts.matched += result.matched;
    for (const element of answers.flatMap((answer) => answer.elements)) {
      counts.answered++;
      if (!element.description.trim()) counts.emptyDescriptions++;
    }
    const unmatched = answers
      .flatMap((answer) => answer.elements)
      .filter((element) => !names.has(element.name.split('.').pop()!)).length;
    counts.invented += unmatched;
    counts.wrongLines += result.dropped - unmatched;
    // Described by the model: no description before, one after (the author's doc comment wins).
    result.file.elements.forEach((element, i) => {
      if (file.elements[i]!.description) return;
      counts.undocumented++;
      if (element.description) counts.described++;
    });
  }
  return counts;
}
