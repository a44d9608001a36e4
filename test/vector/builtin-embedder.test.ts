import { describe, expect, it } from 'vitest';
import { BuiltinEmbedder } from '../../src/vector/builtin-embedder.js';
import { lexicalText, splitIdentifier, stem } from '../../src/text/terms.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

const doc = (name: string, signature: string, code: string) =>
  `function: ${name}\nAccess: public\nFile: src/${name}.ts\nSignature: ${signature}\nCode:\n${code}`;

const DOCS = {
  getUserById: doc('getUserById', 'getUserById(id: number): User', 'return users.find((u) => u.id === id);'),
  removeFile: doc('removeFile', 'removeFile(path: string): void', 'fs.unlinkSync(path);'),
  parseConfig: doc('parseConfig', 'parseConfig(text: string): Settings', 'return JSON.parse(text) as Settings;'),
  renderButton: doc('renderButton', 'renderButton(label: string): Element', 'return h("button", label);'),
  authenticateUser: doc(
    'authenticateUser',
    'authenticateUser(password: string): boolean',
    'return bcrypt.compare(password, hash);',
  ),
};

describe('identifier terms', () => {
  it('splits identifiers into sub-words and joins inflections', () => {
    expect(splitIdentifier('getUserById')).toEqual(['get', 'user', 'by', 'id']);
    expect(splitIdentifier('XMLHttpRequest')).toEqual(['xml', 'http', 'request']);
    expect(splitIdentifier('MAX_RETRY_COUNT')).toEqual(['max', 'retry', 'count']);
    expect(splitIdentifier('parse_json2')).toEqual(['parse', 'json', '2']);
    expect(new Set(['indexer', 'indexing', 'indexes', 'indexed', 'index'].map(stem)).size).toBe(1);
    // The whole name as one token, then its parts: however it is spelled.
    expect(lexicalText('getUserById get_user_by_id')).toBe('getuserbyid get user by id getuserbyid get user by id');
  });
});

describe('the built-in embedder', () => {
  const embedder = new BuiltinEmbedder();
  const names = Object.keys(DOCS) as (keyof typeof DOCS)[];

  it('is deterministic, unit length, and names its version and dimension', async () => {
    const a = await embedder.embedDocuments(Object.values(DOCS));
    const b = await new BuiltinEmbedder().embedDocuments(Object.values(DOCS));
    expect(a).toEqual(b);
    expect(a.length).toBe(names.length * 512);
    for (let i = 0; i < names.length; i++) expect(Math.hypot(...a.subarray(i * 512, (i + 1) * 512))).toBeCloseTo(1, 5);
    expect(embedder.id).toBe('builtin:v2:512');
    expect(new BuiltinEmbedder({ dimension: 256 }).id).toBe('builtin:v2:256');
    expect(() => new BuiltinEmbedder({ dimension: 3 })).toThrow(/dimension/);
  });

  it('gives a document the same vector whatever it embedded before (its sums start from zero)', async () => {
    const used = new BuiltinEmbedder();
    await used.embedDocuments([...Object.values(DOCS), 'getUserById getUserById user by id', 'user']);
    await used.embedQuery('user by id');
    const texts = Object.values(DOCS);
    expect(await used.embedDocuments(texts)).toEqual(await new BuiltinEmbedder().embedDocuments(texts));
    expect(await used.embedDocuments(texts.slice(1, 2))).toEqual(
      (await new BuiltinEmbedder().embedDocuments(texts)).subarray(512, 1024),
    );
  });

  /** The document each query should rank first, and why it is more than exact-word overlap. */
  const QUERIES: [string, keyof typeof DOCS][] = [
    ['user by id', 'getUserById'], // sub-words of an identifier
    ['delete a file', 'removeFile'], // delete ~ remove
    ['read configuration settings', 'parseConfig'], // configuration ~ config, stemming
    ['auth login password check', 'authenticateUser'], // abbreviation: auth ~ authenticate
    ['draw buttons', 'renderButton'], // draw ~ render, plural
  ];

  it.each(QUERIES)('ranks the right element first for "%s"', async (query, expected) => {
    const vectors = await embedder.embedDocuments(Object.values(DOCS));
    const q = await embedder.embedQuery(query);
    const scores = names.map((name, i) => [name, dot(q, vectors.subarray(i * 512, (i + 1) * 512))] as const);
    scores.sort((x, y) => y[1] - x[1]);
    expect(scores[0]![0]).toBe(expected);
  });

  it('brings a part of a name closer to the name that holds it than to names that only share its words', async () => {
    const interfaceDoc = (name: string, code = '') =>
      `interface: ${name}\nAccess: public\nFile: lib.dom.d.ts\nSignature: interface ${name} extends SVGElement${code}`;
    // The holder's longer body dilutes its vector, as a real declaration's members do.
    const members =
      '\nCode:\nreadonly method: SVGAnimatedEnumeration;\nreadonly spacing: SVGAnimatedEnumeration;\nreadonly startOffset: SVGAnimatedLength;';
    const [textPath, text, path] = [
      interfaceDoc('SVGTextPathElement', members),
      interfaceDoc('SVGTextElement'),
      interfaceDoc('SVGPathElement'),
    ];
    const vectors = await embedder.embedDocuments([textPath, text, path]);
    const q = await embedder.embedQuery('the interface for the textPath element');
    const [holder, ...others] = [0, 1, 2].map((i) => dot(q, vectors.subarray(i * 512, (i + 1) * 512)));
    for (const other of others) expect(holder).toBeGreaterThan(other!);
  });

  it('weighs query terms by the corpus statistics it is given', async () => {
    const plain = await embedder.embedQuery('user file');
    const weighted = await embedder.embedQuery('user file', { termWeight: (term) => (term === 'user' ? 0.01 : 1) });
    const vectors = await embedder.embedDocuments([DOCS.getUserById, DOCS.removeFile]);
    const [user, file] = [vectors.subarray(0, 512), vectors.subarray(512)];
    expect(dot(weighted, file) - dot(weighted, user)).toBeGreaterThan(dot(plain, file) - dot(plain, user));
  });
});
