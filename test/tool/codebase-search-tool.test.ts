/**
 * CodebaseSearchTool on the labelled fixture: argument checking, the root
 * fence, secrets, the size budget, the permission callback, and the tool
 * definitions and call dispatch for each agent API.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anthropicToolResult,
  CodebaseSearchTool,
  CODEBASE_SEARCH_OUTPUT,
  CODEBASE_SEARCH_PARAMETERS,
  dispatchToolCall,
  Indexer,
  MAX_TOOL_K,
  ollamaToolMessage,
  openAIToolMessage,
  redactSecrets,
  Searcher,
  toAnthropicTool,
  toOllamaTool,
  toOpenAITool,
  type CodebaseSearchHit,
  type CodebaseSearchOutput,
  type PermissionRequest,
} from '../../src/internal.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';
import { searchFixtureFiles } from '../helpers/search-repo.js';

const validateOutput = new Ajv({ allErrors: true }).compile(CODEBASE_SEARCH_OUTPUT);

/** The fixture, plus a file with credentials written into ordinary code. */
const LEAKY = `/** Connects to the billing provider. */
export function connectBilling(): string {
  const apiKey = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c";
  const awsKeyId = 'AKIAIOSFODNN7EXAMPLE';
  const url = 'postgres://billing:hunter2hunter2@db.internal:5432/billing';
  return [apiKey, awsKeyId, url].join(';');
}
`;

describe('CodebaseSearchTool', () => {
  let repo: TempRepo;
  let outside: string;
  let tool: CodebaseSearchTool;

  beforeAll(async () => {
    repo = tempRepo({ ...searchFixtureFiles(), 'src/billing/connect.ts': LEAKY });
    repo.age();
    outside = mkdtempSync(join(tmpdir(), 'ocvector-outside-'));
    writeFileSync(join(outside, 'secret.ts'), 'export const stolen = 1;\n');
    await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
    // Made after indexing: a link that leads out of the root, as a prompt injection would use.
    symlinkSync(outside, join(repo.root, 'src', 'escape'));
    tool = new CodebaseSearchTool({ cwd: join(repo.root, 'src') });
  });
  afterAll(async () => {
    await tool.close();
    repo.cleanup();
    rmSync(outside, { recursive: true, force: true });
  });

  it('finds the code for a question, with the stable result structure, valid against its output schema', async () => {
    const output = await tool.execute({ query: 'hash a password with a salt', k: 3 });
    expect(validateOutput(output), JSON.stringify(validateOutput.errors)).toBe(true);
    expect(output.error).toBeUndefined();
    expect(output.fallback_used).toBe(false);
    expect(output.results.length).toBeLessThanOrEqual(3);
    const [first] = output.results;
    expect(first).toMatchObject({
      path: 'src/auth/passwords.ts',
      element_type: 'function',
      name: 'hashPassword',
      start_line: 6,
      end_line: 10,
      stale: false,
    });
    expect(first!.snippet).toContain('export function hashPassword(password: string): string {');
    expect(Object.keys(first!).sort()).toEqual([
      'description',
      'element_type',
      'end_line',
      'name',
      'path',
      'repo',
      'score',
      'signature',
      'snippet',
      'stale',
      'start_line',
    ]);
  });

  it('applies path_prefix, language and element_type, and defaults k to 8', async () => {
    const all = await tool.execute({ query: 'token' });
    expect(all.results.length).toBeGreaterThan(0);
    expect(all.results.length).toBeLessThanOrEqual(8);
    const filtered = await tool.execute({
      query: 'token',
      path_prefix: 'src/auth',
      language: 'ts',
      element_type: 'method',
    });
    expect(filtered.results.length).toBeGreaterThan(0);
    for (const hit of filtered.results)
      expect(hit).toMatchObject({ path: expect.stringMatching(/^src\/auth\//), element_type: 'method' });
    // An absolute path inside the root is the same prefix.
    const absolute = await tool.execute({
      query: 'token',
      path_prefix: join(repo.root, 'src/auth'),
      element_type: 'method',
    });
    expect(absolute.results.map((hit) => hit.name)).toEqual(filtered.results.map((hit) => hit.name));
  });

  it.each([
    [{}, /"query" is required/],
    [{ query: '' }, /query must NOT have fewer than 1 characters/],
    [{ query: 42 }, /query must be a string/],
    [{ query: 'x', k: '5' }, /k must be an integer/],
    [{ query: 'x', k: 2.5 }, /k must be an integer/],
    [{ query: 'x', k: 1_000_000 }, new RegExp(`k must be <= ${MAX_TOOL_K}`)],
    [{ query: 'x', k: 0 }, /k must be >= 1/],
    [{ query: 'x', language: 'cobol' }, /language must be one of typescript, tsx/],
    [{ query: 'x', element_type: 'widget' }, /element_type must be one of class/],
    [
      { query: 'x', limit: 5 },
      /unknown argument "limit" \(allowed: query, k, path_prefix, language, element_type, repos, explain\)/,
    ],
    [{ query: 'x'.repeat(2_001) }, /query must NOT have more than 2000 characters/],
    [{ query: '   ' }, /the query is empty/],
    ['hash a password', /the arguments must be an object/],
    [null, /the arguments must be an object/],
  ])('explains bad arguments instead of throwing: %j', async (args, message) => {
    const output = await tool.execute(args);
    expect(output.results).toEqual([]);
    expect(output.error).toMatch(/^invalid arguments: /);
    expect(output.error).toMatch(message);
    expect(validateOutput(output)).toBe(true);
  });

  it.each([
    ['../', /leads outside the repository being searched/],
    ['src/../../..', /leads outside the repository being searched/],
    ['..\\..\\etc', /leads outside the repository being searched/],
    ['/etc', /is outside the repository being searched/],
    ['src/escape', /resolves outside the repository being searched \(through a symbolic link\)/],
    ['src/escape/secret.ts', /through a symbolic link/],
    ['src/escape/**/*.ts', /through a symbolic link/],
    ['src\u0000/x', /NUL character/],
  ])('refuses a path_prefix that leaves the root: %j', async (pathPrefix, message) => {
    const output = await tool.execute({ query: 'stolen', path_prefix: pathPrefix });
    expect(output.results).toEqual([]);
    expect(output.error).toMatch(/^path_prefix refused: /);
    expect(output.error).toMatch(message);
  });

  it('accepts paths that only look odd, and explains an empty answer', async () => {
    const inside = await tool.execute({ query: 'token', path_prefix: './src/auth/../auth/' });
    expect(inside.error).toBeUndefined();
    expect(inside.results.length).toBeGreaterThan(0);
    expect(inside.results.every((hit) => hit.path.startsWith('src/auth/'))).toBe(true);
    const nowhere = await tool.execute({ query: 'token', path_prefix: 'src/not-yet-written' });
    expect(nowhere).toMatchObject({
      results: [],
      fallback_used: false,
      note: expect.stringMatching(/nothing matched with path_prefix set: try without it/),
    });
    const nothing = await tool.execute({ query: 'zzyzx qwxjv', language: 'markdown', element_type: 'method' });
    expect(nothing.note).toBe('nothing matched with language, element_type set: try without them, or other words');
  });

  it('never hands over credentials written into code', async () => {
    const output = await tool.execute({ query: 'connectBilling', k: 1 });
    const [hit] = output.results;
    expect(hit?.name).toBe('connectBilling');
    expect(hit!.snippet).toContain('const apiKey = "[redacted]"');
    expect(hit!.snippet).toContain('postgres://billing:[redacted]@db.internal');
    const text = JSON.stringify(output);
    for (const secret of ['sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c', 'AKIAIOSFODNN7EXAMPLE', 'hunter2hunter2'])
      expect(text).not.toContain(secret);
  });

  it('redacts each kind of credential it knows, and leaves ordinary code alone', () => {
    const key = ['-----BEGIN RSA PRIVATE KEY-----', 'MIIEowIBAAKCAQEA7', '-----END RSA PRIVATE KEY-----'].join('\n');
    const cases: [string, string][] = [
      [key, '[redacted]\n\n'], // line breaks kept: line numbers stay true
      ['token = "ghp_0123456789abcdefghijABCDEFGHIJ012345"', 'token = "[redacted]"'],
      [
        'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
        'Authorization: Bearer [redacted]',
      ],
      ["const password = 'correct horse';", "const password = 'correct horse';"], // a phrase with spaces is not a credential
      [
        'if (password.length < 8) throw new Error("too short")',
        'if (password.length < 8) throw new Error("too short")',
      ],
      ['const slack = "xoxb-1234567890-abcdefghij"', 'const slack = "[redacted]"'],
      ['see https://example.com/docs', 'see https://example.com/docs'],
      // Typed assignments, names that contain a secret word, short values, and tokens in prose.
      ['apiKey: string = "k3y-abc123"', 'apiKey: string = "[redacted]"'],
      ['API_KEY: str = "abc123xyz"', 'API_KEY: str = "[redacted]"'],
      ['SECRET_KEY = "hunter2"', 'SECRET_KEY = "[redacted]"'],
      ['// then send Bearer abcdef123456', '// then send Bearer [redacted]'],
      ['api_key: changeme-now', 'api_key: [redacted]'],
      // ... and code that only looks like it.
      ["tokenizer = 'porter'", "tokenizer = 'porter'"],
      ['const tokenType = "Bearer";', 'const tokenType = "Bearer";'],
      ['    token = other_token', '    token = other_token'],
      ['    token: str', '    token: str'],
    ];
    for (const [input, expected] of cases) expect(redactSecrets(input)).toBe(expected);
  });

  it('keeps the whole answer within the size budget, shortening snippets before dropping results', async () => {
    for (const maxOutputChars of [1_000, 2_500, 6_000]) {
      const small = new CodebaseSearchTool({ cwd: repo.root, budget: { maxOutputChars } });
      const output = await small.execute({ query: 'cache retry token password config rows', k: MAX_TOOL_K });
      await small.close();
      expect(JSON.stringify(output).length).toBeLessThanOrEqual(maxOutputChars);
      expect(validateOutput(output)).toBe(true);
      expect(output.results.length).toBeGreaterThan(0);
      expect(output).toMatchObject({ truncated: true, note: expect.stringMatching(/size budget/) });
    }
    const roomy = await tool.execute({ query: 'cache retry token password config rows', k: MAX_TOOL_K });
    expect(roomy.truncated).toBeUndefined();
    const snippets = new CodebaseSearchTool({ cwd: repo.root, budget: { snippetMaxLines: 2 } });
    const short = await snippets.execute({ query: 'LruCache', k: 1 });
    await snippets.close();
    expect(short.results[0]!.snippet!.split('\n')).toHaveLength(3); // two lines and "… (n more lines)"
    expect(() => new CodebaseSearchTool({ budget: { maxOutputChars: 10 } })).toThrow(
      /budget.maxOutputChars must be an integer of at least 1000/,
    );
  });

  it("with explain, says how each result's score added up: terms that sum to the score; without, nothing", async () => {
    /** Each term is rounded to 4 decimals, as the score is: their sum is the score within that rounding. */
    const termsAddUp = (hit: CodebaseSearchHit) =>
      Math.abs(hit.explain!.terms.reduce((sum, term) => sum + term.contribution, 0) - hit.score) <=
      5e-5 * (hit.explain!.terms.length + 1);
    for (const query of ['hash a password with a salt', 'issueToken', 'src/auth']) {
      const plain = await tool.execute({ query, k: 5 });
      expect(plain.results.length, query).toBeGreaterThan(0);
      expect(plain.results.every((hit) => hit.explain === undefined)).toBe(true);
      const explained = await tool.execute({ query, k: 5, explain: true });
      expect(validateOutput(explained), JSON.stringify(validateOutput.errors)).toBe(true);
      // The same results, in the same order, with their terms.
      expect(explained.results.map(({ explain: _, ...hit }) => hit)).toEqual(plain.results);
      for (const hit of explained.results) {
        expect(hit.explain!.terms.length, `${query}: ${hit.name}`).toBeGreaterThan(0);
        expect(termsAddUp(hit), `${query}: ${hit.name} ${JSON.stringify(hit.explain)}`).toBe(true);
      }
    }
    // The terms the CLI's --explain shows: the features' and the later stages' (names of SCORE_WEIGHTS, role:…).
    const name = await tool.execute({ query: 'issueToken', k: 3, explain: true });
    const exact = name.results.find((hit) => hit.name.endsWith('issueToken'))!;
    expect(exact.explain!.terms.map((term) => term.feature)).toContain('exactName');
    expect(exact.explain!.tier).toBe(3);
    expect((await tool.execute({ query: 'issueToken', explain: 'yes' })).error).toMatch(/explain must be a boolean/);
  });

  it("counts explain's terms in the size budget, and drops them after the snippet, before the result", async () => {
    const query = 'cache retry token password config rows';
    const kept = new Map<number, number>();
    for (const maxOutputChars of [1_000, 2_500, 6_000]) {
      const small = new CodebaseSearchTool({ cwd: repo.root, budget: { maxOutputChars } });
      const output = await small.execute({ query, k: MAX_TOOL_K, explain: true });
      await small.close();
      expect(JSON.stringify(output).length).toBeLessThanOrEqual(maxOutputChars);
      expect(validateOutput(output)).toBe(true);
      expect(output.results.length).toBeGreaterThan(0);
      expect(output).toMatchObject({ truncated: true, note: expect.stringMatching(/size budget/) });
      // A result keeps its terms as long as they fit; one without them has no snippet either.
      for (const hit of output.results) if (!hit.explain) expect(hit.snippet).toBeNull();
      kept.set(maxOutputChars, output.results.filter((hit) => hit.explain).length);
    }
    expect(kept.get(1_000)).toBe(0);
    expect(kept.get(6_000)).toBeGreaterThan(0);
  });

  it('asks the permission callback with the checked arguments, and obeys it', async () => {
    const asked: PermissionRequest[] = [];
    const guarded = new CodebaseSearchTool({
      cwd: repo.root,
      permission: async (request) => {
        asked.push(request);
        if (request.tool !== 'codebase_search') return false;
        if (request.arguments.path_prefix?.startsWith('src/auth'))
          return { allow: false, reason: 'auth code is off limits' };
        if (request.arguments.query === 'boom') throw new Error('policy service down');
        return request.arguments.query !== 'no';
      },
    });
    expect((await guarded.execute({ query: 'retry', k: 2 })).results.length).toBeGreaterThan(0);
    expect(await guarded.execute({ query: 'token', path_prefix: 'src/auth' })).toEqual({
      results: [],
      fallback_used: false,
      error: 'the call was denied: auth code is off limits',
    });
    expect((await guarded.execute({ query: 'no' })).error).toBe('the call was denied');
    expect((await guarded.execute({ query: 'boom' })).error).toBe(
      'the call was denied: the permission check failed (policy service down)',
    );
    // Bad arguments never reach the callback.
    await guarded.execute({ query: 'x', k: 'lots' });
    await guarded.close();
    expect(asked.map((request) => (request.tool === 'codebase_search' ? request.arguments.query : ''))).toEqual([
      'retry',
      'token',
      'no',
      'boom',
    ]);
    expect(asked[0]).toEqual({ tool: 'codebase_search', arguments: { query: 'retry', k: 2 } });
  });

  it('answers with an explanation when there is no index, and finds one made later', async () => {
    const empty = tempRepo({ 'main.py': 'def greet(name):\n    """Say hello."""\n    return f"hello {name}"\n' });
    const lonely = new CodebaseSearchTool({ cwd: empty.root });
    const before = await lonely.execute({ query: 'greet' });
    expect(before).toMatchObject({
      results: [],
      error: expect.stringMatching(/^no index at or above .*: build one with oc-vector-index/),
    });
    await new Indexer({ path: empty.root, embedder: 'builtin', llm: false }).run();
    const after = await lonely.execute({ query: 'greet' });
    expect(after.results[0]).toMatchObject({ name: 'greet', path: 'main.py' });
    await lonely.close();
    empty.cleanup();
  });

  it('shares a Searcher it is given and leaves it open', async () => {
    const searcher = await Searcher.open({ indexDir: join(repo.root, '.ocvector') });
    const shared = new CodebaseSearchTool({ searcher });
    expect((await shared.execute({ query: 'parseCsv', k: 1 })).results[0]?.name).toMatch(/parse/i);
    await shared.close();
    expect((await searcher.search('parseCsv', { k: 1 })).results.length).toBe(1);
    searcher.close();
  });

  it('describes itself in the formats of Ollama, OpenAI and Anthropic', () => {
    const fn = {
      name: 'codebase_search',
      description: expect.stringMatching(/^Search the indexed codebase by meaning and by name/),
      parameters: CODEBASE_SEARCH_PARAMETERS,
    };
    expect(toOllamaTool(tool)).toEqual({ type: 'function', function: fn });
    expect(toOpenAITool(tool)).toEqual({ type: 'function', function: fn });
    expect(toAnthropicTool(tool)).toEqual({
      name: 'codebase_search',
      description: fn.description,
      input_schema: CODEBASE_SEARCH_PARAMETERS,
    });
    expect(CODEBASE_SEARCH_PARAMETERS).toMatchObject({
      type: 'object',
      required: ['query'],
      additionalProperties: false,
    });
    expect(Object.keys(CODEBASE_SEARCH_PARAMETERS.properties)).toEqual([
      'query',
      'k',
      'path_prefix',
      'language',
      'element_type',
      'repos',
      'explain',
    ]);
    expect(CODEBASE_SEARCH_PARAMETERS.properties.explain).toMatchObject({ type: 'boolean', default: false });
    // The schema itself is valid JSON Schema.
    expect(() => new Ajv({ strict: true }).compile(CODEBASE_SEARCH_PARAMETERS)).not.toThrow();
  });

  it('dispatches a model tool call in each format, and answers a malformed one with an error', async () => {
    const ollama = await dispatchToolCall([tool], {
      function: { name: 'codebase_search', arguments: { query: 'hashPassword', k: 1 } },
    });
    expect(ollama).toMatchObject({ name: 'codebase_search', isError: false });
    expect((ollama.output as CodebaseSearchOutput).results[0]?.name).toBe('hashPassword');
    expect(JSON.parse(ollama.content)).toEqual(ollama.output);
    expect(ollamaToolMessage(ollama)).toEqual({ role: 'tool', tool_name: 'codebase_search', content: ollama.content });

    const openai = await dispatchToolCall(tool, {
      id: 'call_1',
      type: 'function',
      function: { name: 'codebase_search', arguments: '{"query":"retry with backoff","k":2}' },
    });
    expect(openai).toMatchObject({ id: 'call_1', isError: false });
    expect(openAIToolMessage(openai)).toEqual({ role: 'tool', tool_call_id: 'call_1', content: openai.content });

    const anthropic = await dispatchToolCall([tool], {
      type: 'tool_use',
      id: 'toolu_1',
      name: 'codebase_search',
      input: { query: 'LruCache' },
    });
    expect(anthropicToolResult(anthropic)).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: anthropic.content,
      is_error: false,
    });

    const badJson = await dispatchToolCall([tool], {
      id: 'call_2',
      function: { name: 'codebase_search', arguments: '{"query": "x"' },
    });
    expect(badJson).toMatchObject({
      id: 'call_2',
      isError: true,
      output: { error: expect.stringMatching(/^the arguments are not valid JSON/) },
    });
    const unknown = await dispatchToolCall([tool], { function: { name: 'rm_rf', arguments: {} } });
    expect(unknown.output).toEqual({ error: 'unknown tool "rm_rf"; available: codebase_search' });
    const invalid = await dispatchToolCall([tool], { function: { name: 'codebase_search', arguments: { k: 3 } } });
    expect(invalid).toMatchObject({ isError: true, output: { error: 'invalid arguments: "query" is required' } });
    for (const garbage of [null, 'codebase_search', { function: {} }, { type: 'tool_use' }]) {
      expect((await dispatchToolCall([tool], garbage)).isError).toBe(true);
    }
  });

  it('reads nothing outside the root even when an indexed file is swapped for a link out of it', async () => {
    const linked = tempRepo({ 'src/keep.ts': 'export function keepMe(): number {\n  return 1;\n}\n' });
    linked.age();
    await new Indexer({ path: linked.root, embedder: 'builtin', llm: false }).run();
    mkdirSync(join(outside, 'src'), { recursive: true });
    writeFileSync(join(outside, 'src', 'keep.ts'), 'export function keepMe(): number {\n  return 42; // outside\n}\n');
    rmSync(join(linked.root, 'src'), { recursive: true });
    symlinkSync(join(outside, 'src'), join(linked.root, 'src'));
    const guarded = new CodebaseSearchTool({ cwd: linked.root });
    const output = await guarded.execute({ query: 'keepMe' });
    await guarded.close();
    expect(output.results[0]).toMatchObject({ name: 'keepMe', snippet: null });
    expect(JSON.stringify(output)).not.toContain('outside');
    linked.cleanup();
  });
});
