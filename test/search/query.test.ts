import { describe, expect, it } from 'vitest';
import {
  compileFilters,
  cutLines,
  compileGlob,
  matchExpression,
  nameMatch,
  parseQuery,
  snippetLines,
} from '../../src/internal.js';
import { filterSql } from '../../src/store/embedded/filter-sql.js';

describe('parseQuery', () => {
  it.each([
    ['getUserById', true],
    ['wasm32', true],
    ['Status', true],
    ['parseConfig loadConfig', true],
    ['IndexStore.open writeFile()', true],
    ['parseConfig in the loader', false],
    ['a b c d', false],
    ['one two three four_five six', false],
    ['src/store.ts', false],
  ])('%s asks for names only (exact first): %s', (query, exact) => {
    expect(parseQuery(query).exactFirst).toBe(exact);
  });

  it.each([
    ['getUserById', 'identifier'],
    ['Index.search', 'identifier'],
    ['parse_config', 'identifier'],
    ['HTTPServer', 'identifier'],
    ['IndexStore::open', 'identifier'],
    ['getUserById()', 'identifier'],
    ['src/store/store.ts', 'path'],
    ['vector-file.ts', 'path'],
    ['src/store', 'path'],
    ['write the index file atomically', 'prose'],
    ['parser', 'prose'],
    ['where is getUserById called', 'prose'],
    ['parse config in src/util', 'prose'],
  ])('%s is a %s query', (text, kind) => {
    expect(parseQuery(text).kind).toBe(kind);
  });

  it.each([
    ['fix escaped path matcher', true],
    ['caddyhttp: fix escaped path matcher', true],
    ['feat(cli): support pep 735 on add', true],
    ["Don't close idle connections twice", true],
    ['Fixed the timeout of slow uploads', true],
    ['how are routes defined and dispatched', false],
    ['request parsing and validation', false],
    ['saving and loading models from disk', false],
    ['Adds a property to an object, or modifies attributes of an existing one.', false],
    ['where do I fix the timeout', false],
    ['fixThing', false],
    ['fix', true],
    // A scope of a few words, an adverb before the verb, a bug report, a wish.
    ['env activate: fallback to POSIX compatible builtin', true],
    ['cache clear: make cache name optional to clear all caches', true],
    ['always include userbase in paths', true],
    ['only add readme key if README file exists', true],
    ['fix(locker): extras should preserve markers', true],
    ['`copy_headers` does not strip client-supplied identity headers', true],
    ['broken icon on windows 10', true],
    ['log status 499 instead of 0 when client disconnects', true],
    ['do not use cygpath for elvish', true],
    ['better error report when no links found', true],
    // A conventional commit type that changes code labels a change, whatever follows it.
    ['perf: cache supported wheel tags set', true],
    ['feat(cli)!: poetry show json output format', true],
    ['docs: the variables each command reads', false],
    // Questions, topics and a clause that only comes late stay as they were.
    ['does the router retry when the upstream is down', false],
    ['how should errors be reported', false],
    ['request retries when the upstream connection is not reachable', false],
    ['Abort error and HTTP error response throwing', false],
    ['required flags validation before command execution', false],
    ['env: the variables each command reads', false],
    // A ticket or a branch tag in front is bookkeeping: the verb comes after it.
    ['KTOR-8450 Add media type suffix support', true],
    ['KTOR-9719. Document ApplicationCall.isStaticContent returns false in early phases', false],
    ['[13.x] Add `stop()` and `ensureNotTimedOut()` to `FakeInvokedProcess`', true],
    ['#1234 fix escaped path matcher', true],
    ['KTOR-9761 Cancel response lost to CIO writer timeout', true],
    ['KTOR-9792 Application lifecycle events affect other reload generations', false],
  ])('%s asks for a change: %s', (text, asks) => {
    expect(parseQuery(text).asksChange).toBe(asks);
  });

  it.each([
    ['fix error handling for git dependencies', ['error', 'handling', 'git', 'dependencies']],
    ['Fixed the timeout of slow uploads', ['timeout', 'slow', 'uploads']],
    ['always add readme key if README file exists', ['always', 'readme', 'key', 'file', 'exists']],
    ['fix(install): improve UX for version option', ['install', 'ux', 'version', 'option']],
    ['feat!: support pep 735 on add', ['pep', '735', 'add']],
    ['caddyhttp: add placeholder for protocol names', ['caddyhttp', 'placeholder', 'protocol', 'names']],
    // A verb that names the behaviour is what the code spells: it stays.
    [
      'validate version constraint in interactive prompt',
      ['validate', 'version', 'constraint', 'interactive', 'prompt'],
    ],
    ['fix', ['fix']],
    // Past a ticket, the opening verb is still the kind of change.
    ['KTOR-8450 Add media type suffix support', ['ktor', '8450', 'media', 'type', 'suffix', 'support']],
    // A language's keywords typed in a sentence are words of it, weighed by their rarity like any.
    ['Improve static content handling', ['static', 'content', 'handling']],
    ['make quality parameter case-insensitive', ['quality', 'parameter', 'case', 'insensitive']],
  ])('searches %s for the change, not its kind', (text, terms) => {
    expect(parseQuery(text).terms).toEqual(terms);
  });

  it('searches every word of a question or a topic, verbs of change included', () => {
    expect(parseQuery('how do I fix the timeout').terms).toEqual(['how', 'i', 'fix', 'timeout']);
    expect(parseQuery('request parsing and support for proxies').terms).toEqual([
      'request',
      'parsing',
      'support',
      'proxies',
    ]);
  });

  it('keeps identifiers and paths apart, and leaves paths out of the text to embed', () => {
    const parsed = parseQuery('  retry logic   src/net/retry.ts fetchWithRetry ');
    expect(parsed.text).toBe('retry logic   src/net/retry.ts fetchWithRetry');
    expect(parsed.paths).toEqual(['src/net/retry.ts']);
    expect(parsed.identifiers).toEqual(['fetchWithRetry']);
    expect(parsed.semanticText).toBe('retry logic fetchWithRetry');
  });

  it("counts a sentence's capitalised words among its names, but not acronyms or words with other characters", () => {
    expect(parseQuery('Content protocol for encoding and decoding request bodies').identifiers).toEqual(['Content']);
    expect(parseQuery('how the Gin Engine embeds RouterGroup and Context per request').identifiers).toEqual([
      'Gin',
      'Engine',
      'RouterGroup',
      'Context',
    ]);
    expect(parseQuery("HTTP and JSON error responses in Rust's std").identifiers).toEqual([]);
    expect(parseQuery('where is getUserById() called').identifiers).toEqual(['getUserById']);
    // Still a sentence: its names are context, not the whole question.
    expect(parseQuery('Content protocol').kind).toBe('prose');
  });
});

describe('matchExpression', () => {
  it('quotes every token, adds sub-words and drops stop words', () => {
    expect(matchExpression(['the', 'getUserById'])).toBe('"getuserbyid" OR "get" OR "user" OR "id"');
    expect(matchExpression(['the', 'of'])).toBe('"the" OR "of"');
    expect(matchExpression(['"', '*', '()'])).toBeUndefined();
    expect(matchExpression(['NEAR(x', 'b)'])).toBe('"near" OR "x" OR "b"');
  });
});

describe('nameMatch', () => {
  it('matches qualified names exactly or by their last segment', () => {
    expect(nameMatch('IndexStore.open', ['IndexStore.open'])).toBe('exact');
    expect(nameMatch('IndexStore.open', ['open'])).toBe('exact');
    expect(nameMatch('FaissIndex.search', ['Index.search'])).toBe('partial');
    expect(nameMatch('IndexStore::open'.replace('::', '.'), ['IndexStore::open'])).toBe('exact');
    expect(nameMatch('IndexStore.close', ['open'])).toBeUndefined();
  });

  it('an identifier written with capitals names exactly that spelling: other cases only resemble it', () => {
    expect(nameMatch('Visitor', ['Visitor'])).toBe('exact');
    expect(nameMatch('SeedStructVariant.visitor', ['Visitor'])).toBe('partial');
    expect(nameMatch('String.serialize', ['Serialize'])).toBe('partial');
    // Written in lower case, any case matches.
    expect(nameMatch('Serializer.Serialize', ['serialize'])).toBe('exact');
  });
});

describe('filters', () => {
  const row = (path: string, language: string | null = 'typescript', type = 'function') => ({ path, language, type });

  it('globs: ** crosses directories, * does not, a bare pattern matches the name anywhere', () => {
    expect(compileGlob('src/**/*.ts').test('src/a/b/c.ts')).toBe(true);
    expect(compileGlob('src/**/*.ts').test('src/c.ts')).toBe(true);
    expect(compileGlob('src/*.ts').test('src/a/c.ts')).toBe(false);
    expect(compileGlob('*.py').test('tools/deep/x.py')).toBe(true);
    expect(compileGlob('*.py').test('x.pyc')).toBe(false);
    expect(compileGlob('src/[ab].ts').test('src/b.ts')).toBe(true);
    expect(compileGlob('a+b(1).ts').test('a+b(1).ts')).toBe(true);
  });

  it('compiles to SQL and to a predicate that agree', () => {
    const prefix = compileFilters({ path: './src/net/' });
    expect(prefix.active).toBe(true);
    expect(prefix.matches(row('src/net/retry.ts'))).toBe(true);
    expect(prefix.matches(row('src/network.ts'))).toBe(false);
    expect(filterSql(prefix.conditions).params).toEqual(['src/net', 8, 'src/net/']);

    const typed = compileFilters({ language: 'Python, typescript', type: ['method'] });
    // Lists travel as one JSON parameter: the SQL text does not grow with them (src/store/embedded/sqlite.ts).
    expect(filterSql(typed.conditions).sql).toBe(
      'f.language IN (SELECT value FROM json_each(?)) AND e.element_type IN (SELECT value FROM json_each(?))',
    );
    expect(filterSql(typed.conditions).params).toEqual(['["python","typescript"]', '["method"]']);
    expect(typed.matches(row('a.py', 'python', 'method'))).toBe(true);
    expect(typed.matches(row('a.py', 'python', 'function'))).toBe(false);
    expect(typed.matches(row('a.md', null, 'method'))).toBe(false);

    expect(compileFilters({ path: '.' }).active).toBe(false);
    expect(filterSql(compileFilters({}).conditions).sql).toBe('1');
  });
});

describe('cutLines', () => {
  const lines = ['class A {', '  method() {', '    return 1;', '  }', '}'];

  it('dedents, limits lines and characters, and counts what it left out', () => {
    expect(cutLines(lines, 2, 4)).toBe('method() {\n  return 1;\n}');
    expect(cutLines(lines, 1, 5, { maxLines: 2 })).toBe('class A {\n  method() {\n… (3 more lines)');
    expect(cutLines(['x'.repeat(50)], 1, 1, { maxChars: 10 })).toBe(`${'x'.repeat(10)} …`);
    expect(cutLines(lines, 4, 99)).toBe('  }\n}');
    // The same cut as code and a count, for JSON.
    expect(snippetLines(lines, 1, 5, { maxLines: 2 })).toEqual({ text: 'class A {\n  method() {', moreLines: 3 });
    expect(snippetLines(lines, 2, 4)).toEqual({ text: 'method() {\n  return 1;\n}', moreLines: 0 });
  });
});
