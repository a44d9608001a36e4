/**
 * Files ranked by the evidence that points at them (file-evidence.ts): each
 * feature scaled to the best candidate's, weighed, summed, and held back by
 * what the file is for. A change is made in code: a test, a page of
 * documentation or a translation catalog that spells the words is
 * kept below the code it tests or describes (ROLE_PRIOR raised to
 * `rolePower`, and `notCode` for a file in no programming language).
 */
import { detectLanguage, isCodeLanguage } from '../../analysis/language-names.js';
import { rolePrior } from '../ranking/path-priors.js';
import { FEATURES, type FeatureName, type FileCandidate } from './file-evidence.js';

export interface FileWeights extends Record<FeatureName, number> {
  /** ROLE_PRIOR (search/ranking/knobs.ts) raised to this power. */
  rolePower: number;
  /** The factor for a file in no programming language (a catalog, a text file, a data file). */
  notCode: number;
}

/**
 * Chosen by `npm run eval:tune-files` on the development half's features
 * (docs/retrieval-quality.md, "Which file to change"): a traceback's frames
 * and a quoted error weigh most, a named path next, the element search's
 * files and the names used after; whole-file words and definitions confirm
 * more than they decide (a name is defined in many files). A file in no
 * programming language is all but left out: the change is made in code.
 */
export const DEFAULT_FILE_WEIGHTS: Readonly<FileWeights> = {
  frame: 2,
  path: 1,
  module: 0.1,
  defines: 0.25,
  mentions: 0.5,
  error: 2,
  text: 0.25,
  elements: 0.75,
  rolePower: 2,
  notCode: 0.1,
};

export interface RankedFile {
  candidate: FileCandidate;
  score: number;
  /** Each feature's value scaled to the best candidate's (0 to 1). */
  scaled: Partial<Record<FeatureName, number>>;
  prior: number;
  /** What the prior is made of: ROLE_PRIOR's product for the file's roles, and whether it is code. */
  roles: number;
  code: boolean;
}

/** Candidates ranked best first (ties by path), scored by `weights`. */
export function rankFiles(candidates: Iterable<FileCandidate>, weights: Readonly<FileWeights>): RankedFile[] {
  const list = [...candidates];
  const best = new Map<FeatureName, number>();
  for (const candidate of list)
    for (const feature of FEATURES) {
      const value = candidate.features[feature] ?? 0;
      if (value > (best.get(feature) ?? 0)) best.set(feature, value);
    }
  const ranked = list.map((candidate): RankedFile => {
    const scaled: Partial<Record<FeatureName, number>> = {};
    for (const feature of FEATURES) {
      const value = candidate.features[feature];
      if (value) scaled[feature] = value / best.get(feature)!;
    }
    const { roles, code } = fileRole(candidate.file.path);
    const { score, prior } = fileScore({ features: scaled, roles, code }, weights);
    return { candidate, score, scaled, prior, roles, code };
  });
  return ranked.sort(
    (a, b) =>
      b.score - a.score ||
      (a.candidate.file.path < b.candidate.file.path ? -1 : a.candidate.file.path > b.candidate.file.path ? 1 : 0),
  );
}

/** A file's score from its scaled features and what it is for (also what eval:tune-files re-scores with). */
export function fileScore(
  file: { features: Partial<Record<FeatureName, number>>; roles: number; code: boolean },
  weights: Readonly<FileWeights>,
): { score: number; prior: number } {
  let sum = 0;
  for (const feature of FEATURES) sum += weights[feature] * (file.features[feature] ?? 0);
  const prior = file.roles ** weights.rolePower * (file.code ? 1 : weights.notCode);
  return { score: sum * prior, prior };
}

/** What a file is for: the product of its roles' priors (tests, docs, examples …), and whether it is code. */
export function fileRole(path: string): { roles: number; code: boolean } {
  return { roles: rolePrior(path, NOTHING_REQUESTED), code: isCodeLanguage(detectLanguage(path)) };
}

const NOTHING_REQUESTED: ReadonlySet<never> = new Set();
