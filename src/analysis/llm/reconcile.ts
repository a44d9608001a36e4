/**
 * Merges a model's answer into the syntax tree's analysis. The tree decides
 * which elements exist and where: a model element is matched to the tree's
 * element of the same name whose start line is close to the one the model
 * cites; what matches nothing is dropped and counted. Matched elements gain
 * the model's description (where the code has no doc comment) and relations.
 */
import type { CodeElement, CodeFile, DependencyType } from '../types.js';
import type { ModelAnswer, ModelElement } from './resources.js';

export interface Reconciliation {
  file: CodeFile;
  matched: number;
  dropped: number;
}

const DEPENDENCY_TYPES: ReadonlySet<string> = new Set([
  'inherits',
  'implements',
  'uses',
  'calls',
  'references',
  'imports',
]);

export function reconcile(file: CodeFile, answers: ModelAnswer[]): Reconciliation {
  const elements = file.elements.map((e) => ({ ...e, dependencies: [...e.dependencies] }));
  const taken = new Set<CodeElement>();
  let matched = 0;
  let dropped = 0;
  for (const answer of answers) {
    for (const modelElement of answer.elements) {
      const target = bestMatch(elements, taken, modelElement);
      if (!target) {
        dropped++;
        continue;
      }
      taken.add(target);
      matched++;
      enrichElement(target, modelElement);
    }
  }
  const summary = file.summary || answers.find((a) => a.summary.trim() !== '')?.summary.trim() || '';
  return { file: { ...file, elements, summary, source: 'ast+llm' }, matched, dropped };
}

function bestMatch(
  elements: CodeElement[],
  taken: Set<CodeElement>,
  modelElement: ModelElement,
): CodeElement | undefined {
  // Models sometimes qualify names (`Class.method`): compare the last part.
  const name = modelElement.name.split('.').pop()!;
  let best: CodeElement | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const element of elements) {
    if (element.name !== name || taken.has(element)) continue;
    const distance = Math.abs(element.startLine - modelElement['start-line']);
    // A model may start an element at its doc comment or decorator, a few
    // lines above the declaration; beyond that it is citing something else.
    const tolerance = Math.max(3, Math.ceil((element.endLine - element.startLine + 1) * 0.1));
    if (distance <= tolerance && distance < bestDistance) {
      best = element;
      bestDistance = distance;
    }
  }
  return best;
}

function enrichElement(element: CodeElement, modelElement: ModelElement): void {
  const description = modelElement.description.trim();
  // The author's doc comment wins over the model's paraphrase.
  if (!element.description && description) element.description = description;
  for (const dependency of modelElement.dependencies ?? []) {
    const target = dependency.target.trim();
    if (!DEPENDENCY_TYPES.has(dependency.type) || !target || target === element.name) continue;
    if (!element.dependencies.some((d) => d.type === dependency.type && d.target === target)) {
      element.dependencies.push({ type: dependency.type as DependencyType, target });
    }
  }
}
