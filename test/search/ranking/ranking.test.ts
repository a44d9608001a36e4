import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../../src/search/query.js';
import { rankCandidates, type CandidateRow, type Evidence } from '../../../src/search/ranking/ranking.js';

/**
 * Rows of a small Elixir-like project: a module and its functions, and a
 * helper file. The module's file is not named after it (a query that spells
 * the file's name lifts it on that alone).
 */
const ROWS: CandidateRow[] = [
  { id: 1, fileId: 10, path: 'lib/ecto/adapter.ex', type: 'module', name: 'Ecto.Repo', startLine: 1, endLine: 900 },
  {
    id: 2,
    fileId: 10,
    path: 'lib/ecto/adapter.ex',
    type: 'function',
    name: 'Ecto.Repo.insert',
    startLine: 120,
    endLine: 140,
  },
  {
    id: 3,
    fileId: 20,
    path: 'lib/ecto/repo/schema.ex',
    type: 'function',
    name: 'Ecto.Repo.Schema.update',
    startLine: 531,
    endLine: 536,
  },
  {
    id: 4,
    fileId: 30,
    path: 'lib/ecto/multi.ex',
    type: 'function',
    name: 'Ecto.Multi.insert',
    startLine: 380,
    endLine: 385,
  },
];
const rows = new Map(ROWS.map((row) => [row.id, row]));
const rank = (query: string, evidence: Partial<Evidence>) =>
  rankCandidates(
    parseQuery(query),
    { lexical: [], vector: [], definitions: new Set(), namedFiles: new Set(), ...evidence },
    rows,
    {
      k: 10,
      weights: { lexical: 1, vector: 1 },
      lexicalSignals: true,
    },
  ).map((hit) => hit.row.id);

describe('the ranking stack', () => {
  it('a query of names only ranks definitions, then elements holding the whole name, then sub-word matches', () => {
    // `insertAll` is defined nowhere here; element 4 holds it whole (in its code), 2 and 1 only share `insert`.
    const lexical = [
      { id: 2, score: 9 },
      { id: 1, score: 6 },
      { id: 4, score: 1 },
    ];
    expect(rank('insertAll', { lexical, wholeWord: new Set([4]) })).toEqual([4, 2, 1]);
    // A definition by the exact name comes before the holders, whatever the scores.
    expect(rank('Ecto.Repo.Schema.update', { lexical, definitions: new Set([3]), wholeWord: new Set([4]) })[0]).toBe(3);
    // A sentence is ranked by score alone: the tiers are for names.
    expect(rank('insert all the rows', { lexical, wholeWord: new Set([4]) })[0]).toBe(2);
  });

  it('a name spelled as typed comes before the same whole name in another spelling, found by either list or not', () => {
    // `insert_all`: element 2 holds `insertAll` (the same token to BM25, and the better score); 4 holds `insert_all`.
    const lexical = [
      { id: 2, score: 9 },
      { id: 4, score: 1 },
    ];
    expect(rank('insert_all', { lexical, wholeWord: new Set([2, 4]) })).toEqual([2, 4]);
    expect(rank('insert_all', { lexical, wholeWord: new Set([2, 4]), spelledAsTyped: new Set([4]) })).toEqual([4, 2]);
    // Element 3 holds it too, as typed, beyond the lists' reach: it is a result all the same.
    expect(rank('insert_all', { lexical, wholeWord: new Set([2, 4]), spelledAsTyped: new Set([4, 3]) })).toEqual([
      4, 3, 2,
    ]);
    // Typed in no spelling the code has (`spelledAsTyped` empty): every holder of the whole name alike, as before.
    expect(rank('insert_all', { lexical, wholeWord: new Set([2, 4]), spelledAsTyped: new Set() })).toEqual([2, 4]);
  });

  it('a sentence naming a symbol exactly lifts the file that defines it, and keeps the order inside that file', () => {
    const lexical = [
      { id: 3, score: 20 },
      { id: 2, score: 3 },
      { id: 4, score: 2 },
      { id: 1, score: 1 },
    ];
    // Without the definition (Ecto.Repo unknown), the lone better hit of another file leads.
    expect(rank('Ecto.Repo behaviour for database interactions', { lexical })[0]).toBe(3);
    const order = rank('Ecto.Repo behaviour for database interactions', { lexical, definitions: new Set([1]) });
    expect(order[0]).toBe(2);
    // The module does not jump above its own member: only its file rose.
    expect(order.indexOf(2)).toBeLessThan(order.indexOf(1));
  });

  it('a capitalised word in a sentence names a type: the file that defines it, so spelled, rises', () => {
    const lexical = [
      { id: 3, score: 20 },
      { id: 2, score: 3 },
    ];
    expect(rank('Repo behaviour for database interactions', { lexical })[0]).toBe(3);
    expect(rank('Repo behaviour for database interactions', { lexical, definitions: new Set([1]) })[0]).toBe(2);
    // In lower case it is a word, not a name.
    expect(rank('repo behaviour for database interactions', { lexical, definitions: new Set([1]) })[0]).toBe(3);
  });

  it('a file whose whole text answers the question rises with all its elements, in their own order', () => {
    const lexical = [
      { id: 4, score: 10 },
      { id: 2, score: 6 },
      { id: 1, score: 5 },
    ];
    expect(rank('insert and update records in a transaction', { lexical })[0]).toBe(4);
    const files = new Map([
      [10, 1],
      [30, 0.2],
    ]);
    const order = rank('insert and update records in a transaction', { lexical, files });
    expect(order[0]).toBe(2);
    expect(order.indexOf(2)).toBeLessThan(order.indexOf(1));
    // A name or a path is not a question about a whole file: the evidence is for prose only.
    expect(rank('Ecto.Multi.insert', { lexical: [{ id: 4, score: 10 }], files })[0]).toBe(4);
  });

  it('a file named after what the question is about comes before one whose name the question only partly spells', () => {
    const sessions = new Map<number, CandidateRow>([
      [
        11,
        { id: 11, fileId: 1, path: 'src/cookie_session.ts', type: 'function', name: 'renew', startLine: 1, endLine: 9 },
      ],
      [12, { id: 12, fileId: 2, path: 'src/session.ts', type: 'function', name: 'renew', startLine: 1, endLine: 9 }],
    ]);
    // Both files answer as well on their whole text.
    const bothAnswer = new Map([
      [1, 1],
      [2, 1],
    ]);
    const order = (query: string, files: Map<number, number> = bothAnswer) =>
      rankCandidates(
        parseQuery(query),
        {
          lexical: [
            { id: 11, score: 5 },
            { id: 12, score: 5 },
          ],
          vector: [],
          definitions: new Set(),
          namedFiles: new Set(),
          files,
        },
        sessions,
        { k: 10, weights: { lexical: 1, vector: 1 }, lexicalSignals: true },
      ).map((hit) => hit.row.path);
    // Both names hold "session"; all of session.ts's name is in the question, half of cookie_session.ts's.
    expect(order('how sessions expire')).toEqual(['src/session.ts', 'src/cookie_session.ts']);
    expect(order('cookie sessions')).toEqual(['src/cookie_session.ts', 'src/session.ts']);
    // The name counts as far as the content answers: with no whole-file evidence it does not reorder them.
    expect(order('how sessions expire', new Map())).toEqual(['src/cookie_session.ts', 'src/session.ts']);
  });

  it('a name spelled differently in case only resembles the symbol: the definition itself is not lifted', () => {
    const lexical = [
      { id: 3, score: 10 },
      { id: 1, score: 3 },
    ];
    // `ecto.repo` is not how the module is spelled; the element still matches, but only partially.
    expect(rank('ecto.repo behaviour', { lexical, definitions: new Set([1]) })[0]).toBe(1);
    expect(rank('ECTO.REPO behaviour', { lexical, definitions: new Set([1]) })[0]).toBe(3);
  });
});

describe('inside a file and across files', () => {
  const QUESTION = 'how the database opens connections';

  it("a file's second element is listed on its own evidence: the file's evidence counts once", () => {
    // File 10 holds two good matches; files 20 and 30 one weaker each.
    expect(rank(QUESTION, { lexical: [1, 2, 3, 4].map((id, i) => ({ id, score: [10, 9, 6, 5][i]! })) })).toEqual([
      1, 2, 3, 4,
    ]);
    // Its second element matches weakly: the file's evidence (coherence) no longer carries it above the others.
    expect(rank(QUESTION, { lexical: [1, 3, 4, 2].map((id, i) => ({ id, score: [10, 6, 5, 3][i]! })) })).toEqual([
      1, 3, 4, 2,
    ]);
  });

  it("a file's chunk yields the file's best place to the file's best element, and the file keeps that place", () => {
    const rowsWith = (chunkType: string) =>
      new Map<number, CandidateRow>(
        [
          { id: 1, fileId: 10, path: 'src/db.ts', type: chunkType, name: 'db.ts', startLine: 1, endLine: 10 },
          { id: 2, fileId: 10, path: 'src/db.ts', type: 'function', name: 'open', startLine: 12, endLine: 30 },
          { id: 3, fileId: 20, path: 'src/pool.ts', type: 'function', name: 'acquire', startLine: 5, endLine: 20 },
        ].map((row) => [row.id, row]),
      );
    const ranked = (chunkType: string, query = QUESTION) =>
      rankCandidates(
        parseQuery(query),
        {
          lexical: [
            { id: 1, score: 10 },
            { id: 3, score: 9 },
            { id: 2, score: 8 },
          ],
          vector: [],
          definitions: new Set(),
          namedFiles: new Set(),
        },
        rowsWith(chunkType),
        { k: 10, weights: { lexical: 1, vector: 1 }, lexicalSignals: true },
      );
    const asFunction = ranked('function');
    expect(asFunction.map((hit) => hit.row.id)).toEqual([1, 3, 2]);
    const asChunk = ranked('chunk');
    expect(asChunk.map((hit) => hit.row.id)).toEqual([2, 3, 1]);
    expect(asChunk[0]!.score).toBe(asFunction[0]!.score);
    // A name is not a question: the evidence's order stands.
    expect(ranked('chunk', 'openConnection').map((hit) => hit.row.id)[0]).toBe(1);
  });
});

describe('C headers', () => {
  const row = (id: number, path: string, language: string): CandidateRow => ({
    id,
    fileId: id,
    path,
    type: 'function',
    name: `f${id}`,
    startLine: 1,
    endLine: 20,
    language,
  });
  const cRows = new Map(
    [
      row(1, 'lib/cookie.h', 'c'),
      row(2, 'lib/cookie.c', 'c'),
      row(3, 'absl/strings/str_split.h', 'cpp'),
      row(4, 'absl/strings/str_split.cc', 'cpp'),
    ].map((r) => [r.id, r]),
  );
  const order = (query: string, lexical: Evidence['lexical']) =>
    rankCandidates(parseQuery(query), { lexical, vector: [], definitions: new Set(), namedFiles: new Set() }, cRows, {
      k: 10,
      weights: { lexical: 1, vector: 1 },
      lexicalSignals: true,
    }).map((hit) => hit.row.id);

  it('a question in words prefers the C implementation to the header that declares it, but not in C++', () => {
    const close = (header: number, source: number) => [
      { id: header, score: 10 },
      { id: source, score: 8.5 },
    ];
    expect(order('how cookies are added', close(1, 2))).toEqual([2, 1]);
    expect(order('how strings are split', close(3, 4))).toEqual([3, 4]);
    // A name asks for the declaration as much as for the definition: the order is the evidence's.
    expect(order('Curl_cookie_add', close(1, 2))).toEqual([1, 2]);
  });
});

describe('what is not a result', () => {
  it('a candidate with nothing for it (a vector at zero cosine or below) does not pad the list to k', () => {
    const vector = [
      { id: 1, score: 0.4 },
      { id: 2, score: 0.1 },
      { id: 3, score: 0 },
      { id: 4, score: -0.2 },
    ];
    const ranked = rankCandidates(
      parseQuery('open the database'),
      { lexical: [], vector, definitions: new Set(), namedFiles: new Set() },
      rows,
      {
        k: 10,
        weights: { lexical: 0, vector: 1 },
        lexicalSignals: false,
      },
    );
    expect(ranked.map((hit) => hit.row.id)).toEqual([1, 2]);
    expect(ranked.every((hit) => hit.score > 0)).toBe(true);
  });
});

describe('a request for a change', () => {
  /**
   * Two files: `src/utils/cache.py`, named like the request, whose best element holds most of
   * its words; `src/auth/authenticator.py`, where the words meet across the file (its
   * whole-file BM25 is the best) though no one element holds as many. And the test of the cache.
   */
  const CHANGE_ROWS = new Map<number, CandidateRow>(
    [
      { id: 1, fileId: 1, path: 'src/utils/cache.py', type: 'class', name: 'FileCache', startLine: 1, endLine: 60 },
      {
        id: 2,
        fileId: 2,
        path: 'src/auth/authenticator.py',
        type: 'method',
        name: 'Authenticator.get',
        startLine: 80,
        endLine: 120,
      },
      {
        id: 3,
        fileId: 3,
        path: 'tests/utils/test_cache.py',
        type: 'function',
        name: 'test_file_cache',
        startLine: 1,
        endLine: 20,
      },
    ].map((row) => [row.id, row]),
  );
  const evidence: Evidence = {
    lexical: [
      { id: 1, score: 10 },
      { id: 3, score: 9 },
      { id: 2, score: 7 },
    ],
    vector: [],
    definitions: new Set(),
    namedFiles: new Set(),
    files: new Map([
      [2, 1],
      [1, 0.5],
      [3, 0.6],
    ]),
  };
  const order = (query: string) =>
    rankCandidates(parseQuery(query), evidence, CHANGE_ROWS, {
      k: 10,
      weights: { lexical: 1, vector: 0.5 },
      lexicalSignals: true,
    }).map((hit) => hit.row.path);

  it('ranks first the file where its words meet, where the same words as a topic rank the file named so', () => {
    expect(order('separate body file cache for file downloads')[0]).toBe('src/utils/cache.py');
    expect(order('use separate body file cache for file downloads')[0]).toBe('src/auth/authenticator.py');
    expect(order('fix(auth): use separate body file cache for file downloads')[0]).toBe('src/auth/authenticator.py');
  });

  it('holds tests back further, unless it asks for them', () => {
    const topic = order('separate body file cache for file downloads');
    const change = order('use separate body file cache for file downloads');
    expect(change.indexOf('tests/utils/test_cache.py')).toBeGreaterThanOrEqual(
      topic.indexOf('tests/utils/test_cache.py'),
    );
    expect(change.at(-1)).toBe('tests/utils/test_cache.py');
    expect(order('fix the file cache tests').indexOf('tests/utils/test_cache.py')).toBeLessThan(
      change.indexOf('tests/utils/test_cache.py'),
    );
  });
});

describe('explain: how each score added up', () => {
  /** A file of a chunk, a class, its two fields, a constant and a function; a test file; a C header: every stage changes a score. */
  const FILE_ROWS = new Map<number, CandidateRow>(
    [
      { id: 1, fileId: 1, path: 'src/pool.ts', type: 'chunk', name: 'db.ts', startLine: 1, endLine: 5 },
      { id: 2, fileId: 1, path: 'src/pool.ts', type: 'class', name: 'Pool', startLine: 6, endLine: 20 },
      { id: 3, fileId: 1, path: 'src/pool.ts', type: 'field', name: 'Pool.size', startLine: 7, endLine: 7 },
      { id: 4, fileId: 1, path: 'src/pool.ts', type: 'field', name: 'Pool.idle', startLine: 8, endLine: 8 },
      { id: 5, fileId: 1, path: 'src/pool.ts', type: 'function', name: 'connect', startLine: 22, endLine: 40 },
      { id: 6, fileId: 2, path: 'test/db.test.ts', type: 'function', name: 'connects', startLine: 1, endLine: 9 },
      {
        id: 7,
        fileId: 3,
        path: 'src/db.h',
        type: 'function',
        name: 'db_open',
        startLine: 1,
        endLine: 3,
        language: 'c',
      },
      { id: 8, fileId: 1, path: 'src/pool.ts', type: 'constant', name: 'TIMEOUT', startLine: 21, endLine: 21 },
    ].map((row) => [row.id, row]),
  );
  const evidence: Evidence = {
    lexical: [1, 3, 4, 8, 6, 5, 2, 7].map((id, i) => ({ id, score: 10 - i })),
    vector: [5, 6, 2].map((id, i) => ({ id, score: 0.5 - i / 10 })),
    definitions: new Set([2]),
    namedFiles: new Set(),
    files: new Map([
      [1, 1],
      [2, 0.5],
    ]),
  };
  const ranked = (query: string, explain: boolean) =>
    rankCandidates(parseQuery(query), evidence, FILE_ROWS, {
      k: 10,
      weights: { lexical: 1, vector: 0.5 },
      lexicalSignals: true,
      explain,
    });

  it('the terms of each hit add up to its score, through every stage, and explaining changes no score', () => {
    const features = new Set<string>();
    // The last one asks for a change: its weights, and its test file held back further.
    for (const query of ['how the db pool size is set', 'Pool', 'src/pool.ts', 'fix the db pool size']) {
      const hits = ranked(query, true);
      const plain = ranked(query, false);
      expect(hits.map((hit) => [hit.row.id, hit.score])).toEqual(plain.map((hit) => [hit.row.id, hit.score]));
      for (const hit of hits) {
        const { terms, score } = hit.explanation!;
        expect(score).toBe(hit.score);
        expect(terms.reduce((sum, term) => sum + term.contribution, 0)).toBeCloseTo(score, 12);
        for (const term of terms) features.add(term.feature);
      }
    }
    for (const feature of [
      'lexical',
      'vector',
      'fragment',
      'exactName',
      'definingFile',
      'path',
      'pathWords',
      'fileName',
      'fileBm25',
      'role:test',
      'cHeader',
      'fileCoherence',
      'orderInFile',
      'fileCountedOnce',
      'furtherHit',
      'container',
    ])
      expect(features, feature).toContain(feature);
  });
});
