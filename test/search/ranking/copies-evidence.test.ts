/**
 * A module shipped as copies (`src/x.ts`, `x.js`, `x.cjs`: copies.ts) is one
 * file's evidence, not one per copy (issue 57, point 4). zod's
 * `isValidCIDRv6`, a weak match of "validate an email address" in
 * `schemas.ts`, came second: its copy in `schemas.js` was the first hit of
 * that file, kept the whole file's evidence, and its source took that place.
 */
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../../src/search/query.js';
import { sharedModules } from '../../../src/search/ranking/copies.js';
import { rankCandidates, type CandidateRow } from '../../../src/search/ranking/ranking.js';

const ROWS: CandidateRow[] = [
  { id: 1, fileId: 10, path: 'src/strings.ts', type: 'function', name: 'emailSchema', startLine: 1, endLine: 9 },
  { id: 2, fileId: 10, path: 'src/strings.ts', type: 'function', name: 'isValidRange', startLine: 20, endLine: 29 },
  // The built copy of the weak match, a little better scored (a build's text is shorter).
  { id: 3, fileId: 11, path: 'strings.js', type: 'function', name: 'isValidRange', startLine: 15, endLine: 22 },
  // The answer a user wants next, in a file of its own with less whole-file evidence.
  { id: 4, fileId: 20, path: 'src/patterns.ts', type: 'function', name: 'matchEmail', startLine: 3, endLine: 8 },
];

function rank(rows: readonly CandidateRow[], files: Map<number, number>): string[] {
  const lexical = [
    { id: 1, score: 10 },
    { id: 4, score: 7 },
    { id: 3, score: 4.2 },
    { id: 2, score: 4 },
  ].filter((hit) => rows.some((row) => row.id === hit.id));
  return rankCandidates(
    parseQuery('validate an email address'),
    { lexical, vector: [], definitions: new Set(), namedFiles: new Set(), files },
    new Map(rows.map((row) => [row.id, row])),
    { k: 10, weights: { lexical: 1, vector: 1 }, lexicalSignals: true },
  ).map((hit) => `${hit.row.path}:${hit.row.name}`);
}

describe("a module's copies are one file's evidence", () => {
  const files = new Map([
    [10, 1],
    [11, 0.9],
    [20, 0.3],
  ]);

  it("does not give a source's further hit its copy's file evidence again", () => {
    expect(rank(ROWS, files)).toEqual([
      'src/strings.ts:emailSchema',
      'src/patterns.ts:matchEmail',
      'src/strings.ts:isValidRange',
    ]);
  });

  it('ranks as if the copy were not there', () => {
    const withoutCopy = rank(
      ROWS.filter((row) => row.id !== 3),
      files,
    );
    expect(rank(ROWS, files)).toEqual(withoutCopy);
  });

  it("gives each copy the module's best whole-file evidence: a copy's weak element does not outrank its best one", () => {
    // A build's shorter text scores higher as a whole file (BM25's length normalisation): the CommonJS copy here.
    const rows: CandidateRow[] = [
      { id: 1, fileId: 10, path: 'src/strings.ts', type: 'function', name: 'emailSchema', startLine: 1, endLine: 9 },
      { id: 5, fileId: 12, path: 'strings.cjs', type: 'chunk', name: 'strings.cjs', startLine: 40, endLine: 60 },
    ];
    const ranked = rankCandidates(
      parseQuery('validate an email address'),
      {
        lexical: [
          { id: 1, score: 10 },
          { id: 5, score: 3 },
        ],
        vector: [],
        definitions: new Set(),
        namedFiles: new Set(),
        files: new Map([
          [10, 0.5],
          [12, 1],
        ]),
      },
      new Map(rows.map((row) => [row.id, row])),
      { k: 10, weights: { lexical: 1, vector: 1 }, lexicalSignals: true },
    );
    expect(ranked.map((hit) => hit.row.name)).toEqual(['emailSchema', 'strings.cjs']);
    expect(ranked[0]!.features.fileBm25).toBe(1);
  });

  it("gives each copy the module's coherence: its candidates split over the copies are one file's", () => {
    const rows: CandidateRow[] = [
      { id: 1, fileId: 10, path: 'src/strings.ts', type: 'function', name: 'emailSchema', startLine: 1, endLine: 9 },
      { id: 6, fileId: 12, path: 'strings.cjs', type: 'chunk', name: 'strings.cjs', startLine: 40, endLine: 60 },
      { id: 7, fileId: 12, path: 'strings.cjs', type: 'chunk', name: 'strings.cjs', startLine: 61, endLine: 80 },
      { id: 8, fileId: 20, path: 'src/patterns.ts', type: 'function', name: 'matchEmail', startLine: 3, endLine: 8 },
    ];
    const ranked = rankCandidates(
      parseQuery('validate an email address'),
      {
        lexical: [
          { id: 8, score: 10 },
          { id: 1, score: 9 },
          { id: 6, score: 5 },
          { id: 7, score: 5 },
        ],
        vector: [],
        definitions: new Set(),
        namedFiles: new Set(),
      },
      new Map(rows.map((row) => [row.id, row])),
      { k: 10, weights: { lexical: 1, vector: 1 }, lexicalSignals: true },
    );
    const coherence = (id: number) => ranked.find((hit) => hit.row.id === id)!.coherence;
    expect(coherence(1)).toBe(coherence(6));
    expect(coherence(1)).toBe(1);
  });

  it('counts a module once over its copies, and two sources of one format as two files', () => {
    const modules = sharedModules(['src/x.ts', 'x.js', 'x.d.ts', 'src/y.ts', 'README.md']);
    expect([...modules]).toEqual([
      ['src/x.ts', 'x'],
      ['x.js', 'x'],
      ['x.d.ts', 'x'],
    ]);
    // `node/x.ts` and `browser/x.ts` are two implementations: which one would `x.js` be a copy of?
    expect(sharedModules(['node/x.ts', 'browser/x.ts', 'x.js']).size).toBe(0);
  });
});
