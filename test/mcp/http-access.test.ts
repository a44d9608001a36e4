/**
 * Who may do what over MCP HTTP, without a server: the repositories a call
 * may search (scopeRepos, scopeArguments), who may reindex, the tokens file
 * and its checks, bearer authentication, and what counts as loopback.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  FULL_ACCESS,
  mayCall,
  scopeArguments,
  scopeRepos,
  unknownRepository,
  type McpAccess,
} from '../../src/mcp/access.js';
import { isLoopback } from '../../src/mcp/http.js';
import { parseTokens, readTokensFile, type TokenTable } from '../../src/mcp/tokens.js';

const TOKEN_A = 'a'.repeat(32);
const TOKEN_B = 'b'.repeat(32);

describe('scopeRepos', () => {
  it('lets a token for every repository search all of them, or the ones asked for', () => {
    expect(scopeRepos('*', undefined)).toEqual({ repos: undefined });
    expect(scopeRepos('*', ['web'])).toEqual({ repos: ['web'] });
  });

  it('gives a token for some repositories all of its own when none are asked for (an empty list too)', () => {
    expect(scopeRepos(['web', 'api'], undefined)).toEqual({ repos: ['web', 'api'] });
    expect(scopeRepos(['web', 'api'], [])).toEqual({ repos: ['web', 'api'] });
  });

  it("searches those of the token's repositories the index has, and says so when it has none", () => {
    expect(scopeRepos(['web', 'api'], undefined, ['api', 'docs'])).toEqual({ repos: ['api'] });
    expect(scopeRepos(['web', 'api'], ['web'], ['api', 'docs'])).toEqual({ error: unknownRepository('web') });
    expect(scopeRepos(['web'], undefined, ['docs'])).toEqual({ error: unknownRepository('web') });
    // The index's other repositories stay out of reach.
    expect(scopeRepos(['web'], ['docs'], ['web', 'docs'])).toEqual({ error: unknownRepository('docs') });
  });

  it('narrows to the ones asked for, inside the token', () => {
    expect(scopeRepos(['web', 'api'], ['api'])).toEqual({ repos: ['api'] });
    expect(scopeRepos(['web', 'api'], ['api', 'api', 'web'])).toEqual({ repos: ['api', 'web'] });
  });

  it('refuses a repository outside the token in the very words of an unknown one', () => {
    expect(scopeRepos(['web'], ['web', 'secret'])).toEqual({ error: unknownRepository('secret') });
    expect(scopeRepos(['web'], ['secret'])).toEqual({ error: unknownRepository('secret') });
    expect(unknownRepository('secret')).toMatch(/^the index has no repository named "secret"/);
    // The word for a repository that exists elsewhere and one that exists nowhere is the same sentence.
    const forbidden = scopeRepos(['web'], ['api']) as { error: string };
    const missing = scopeRepos(['web'], ['nowhere']) as { error: string };
    expect(forbidden.error.replace('api', 'X')).toBe(missing.error.replace('nowhere', 'X'));
  });
});

describe('scopeArguments', () => {
  const ci: McpAccess = { name: 'ci', repos: ['web', 'api'], write: true };

  it('passes the arguments of a token for every repository unchanged', () => {
    const args = { query: 'x', repos: ['anything'] };
    expect(scopeArguments(args, FULL_ACCESS, true)).toEqual({ args });
    expect(scopeArguments(args, FULL_ACCESS, false)).toEqual({ args });
  });

  it("puts a limited token's repositories into the call, or narrows them", () => {
    expect(scopeArguments({ query: 'x' }, ci, true)).toEqual({ args: { query: 'x', repos: ['web', 'api'] } });
    expect(scopeArguments({ query: 'x', repos: ['api'] }, ci, true)).toEqual({ args: { query: 'x', repos: ['api'] } });
  });

  it('refuses a repository outside the token as unknown, and repos that are not names', () => {
    expect(scopeArguments({ query: 'x', repos: ['other'] }, ci, true)).toEqual({
      error: `invalid arguments: ${unknownRepository('other')}`,
    });
    expect(scopeArguments({ query: 'x', repos: 'web' }, ci, true)).toEqual({
      error: 'invalid arguments: repos must be a list of repository names',
    });
  });

  it('refuses a limited token when the tool cannot be held to repositories', () => {
    const refused = scopeArguments({ query: 'x' }, ci, false);
    expect(refused).toEqual({ error: expect.stringMatching(/cannot be kept to repositories yet.*\(web, api\)/) });
  });
});

describe('mayCall', () => {
  const write = { access: 'write' } as const;
  const read = { access: 'read' } as const;

  it('lets a tool that writes be called by a token that may write (one for some repositories updates those by name)', () => {
    expect(mayCall(FULL_ACCESS, write)).toBe(true);
    expect(mayCall({ name: 'agents', repos: '*', write: false }, write)).toBe(false);
    expect(mayCall({ name: 'ci', repos: ['web'], write: true }, write)).toBe(true);
  });

  it('lets every token call a tool that reads', () => {
    expect(mayCall({ name: 'agents', repos: ['web'], write: false }, read)).toBe(true);
  });
});

describe('the tokens file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ocvector-tokens-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** A file only its owner may read, as the server wants one (`mode` to make it otherwise). */
  const file = (name: string, text: string, mode = 0o600) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    chmodSync(path, mode);
    return path;
  };
  const problem = (json: unknown) => (parseTokens(json) as { problem?: string }).problem;
  const entry = (fields: Record<string, unknown>) => ({
    tokens: [{ name: 'agents', token: TOKEN_A, repos: ['*'], ...fields }],
  });

  it('reads a good file: each token with its repositories and write access', () => {
    const path = file(
      'good.json',
      JSON.stringify({
        tokens: [
          { name: 'agents', token: TOKEN_A, repos: ['*'] },
          { name: 'ci', token: TOKEN_B, repos: ['web', 'acme/api'], write: true },
        ],
      }),
    );
    const read = readTokensFile(path);
    expect('tokens' in read).toBe(true);
    const { tokens } = read as { tokens: TokenTable };
    expect(tokens.size).toBe(2);
    expect(tokens.authenticate(`Bearer ${TOKEN_A}`)).toEqual({ name: 'agents', repos: '*', write: false });
    expect(tokens.authenticate(`bearer ${TOKEN_B}`)).toEqual({ name: 'ci', repos: ['web', 'acme/api'], write: true });
    expect(tokens.authenticate(undefined)).toBeUndefined();
    expect(tokens.authenticate('Bearer')).toBeUndefined();
    expect(tokens.authenticate(TOKEN_A)).toBeUndefined();
    expect(tokens.authenticate(`Basic ${TOKEN_A}`)).toBeUndefined();
    expect(tokens.authenticate(`Bearer ${TOKEN_A}x`)).toBeUndefined();
    expect(tokens.authenticate(`Bearer ${TOKEN_A.slice(1)}`)).toBeUndefined();
  });

  it('names a missing file and bad JSON by line and column, never quoting the file (it holds tokens)', () => {
    expect(readTokensFile(join(dir, 'absent.json'))).toEqual({
      problem: `cannot read the tokens file ${join(dir, 'absent.json')}: no such file`,
    });
    const bad = file('bad.json', '{"tokens": [');
    expect((readTokensFile(bad) as { problem: string }).problem).toBe(
      `the tokens file ${bad} is not valid JSON at line 1, column 13: the text ends too early`,
    );
    // A token left unquoted: JSON.parse's own message would print the start of it.
    const secret = 'tok-secret-0123456789abcdef';
    const unquoted = file('unquoted.json', `{"tokens": [\n  {"name": "ci", "token": ${secret}, "repos": ["*"]}\n]}`);
    const problem = (readTokensFile(unquoted) as { problem: string }).problem;
    expect(problem).toBe(`the tokens file ${unquoted} is not valid JSON at line 2, column 27: expected a value`);
    expect(problem).not.toContain('tok-');
    for (const [text, at] of [
      ['{"tokens": [1,]}', 'line 1, column 15: expected a value'],
      ['{"tokens" [] }', "line 1, column 11: expected ':' after a key"],
      ['{"tokens": []} x', 'line 1, column 16: more follows the value'],
      ['{"tokens": ["ab\tc"]}', 'line 1, column 13: a string is not closed, or holds a raw control character'],
      ["{'tokens': []}", 'line 1, column 2: expected a key in double quotes'],
    ] as const)
      expect((readTokensFile(file('syntax.json', text)) as { problem: string }).problem).toBe(
        `the tokens file ${join(dir, 'syntax.json')} is not valid JSON at ${at}`,
      );
  });

  it('refuses a key given twice in any object, naming the key and the entry', () => {
    const twice = file(
      'twice.json',
      `{"tokens": [\n  {"name": "agents", "token": "${TOKEN_A}", "repos": ["*"]},\n  {"name": "ci", "token": "${TOKEN_B}", "repos": ["web"], "token": "${'c'.repeat(32)}"}\n]}`,
    );
    expect((readTokensFile(twice) as { problem: string }).problem).toBe(
      `the tokens file ${twice}: entry 2 has "token" twice (line 3): JSON would keep only the last, so give it once`,
    );
    const top = file('top.json', `{"tokens": [], "tokens": [{"name": "a", "token": "${TOKEN_A}", "repos": ["*"]}]}`);
    expect((readTokensFile(top) as { problem: string }).problem).toMatch(/: the top-level object has "tokens" twice/);
    // Equal keys in different objects are fine, and so are keys spelled with escapes as long as they differ.
    const good = file(
      'distinct.json',
      JSON.stringify({
        tokens: [
          { name: 'a', token: TOKEN_A, repos: ['*'] },
          { name: 'b', token: TOKEN_B, repos: ['web'] },
        ],
      }),
    );
    expect('tokens' in readTokensFile(good)).toBe(true);
  });

  it('refuses a file other users may read or change, unless allowed', () => {
    const text = JSON.stringify({ tokens: [{ name: 'agents', token: TOKEN_A, repos: ['*'] }] });
    for (const mode of [0o644, 0o640, 0o604, 0o620]) {
      const open = file('open.json', text, mode);
      expect((readTokensFile(open) as { problem: string }).problem).toBe(
        `the tokens file ${open} is open to other users (mode 0${mode.toString(8)}): make it yours alone with chmod 600 ${open}, or pass --allow-readable-tokens`,
      );
      expect('tokens' in readTokensFile(open, { allowReadable: true })).toBe(true);
    }
    expect('tokens' in readTokensFile(file('own.json', text, 0o400))).toBe(true);
  });

  it('names what is wrong with the shape and each entry', () => {
    expect(problem([])).toMatch(/must be an object with a "tokens" list/);
    expect(problem({ tokens: {} })).toMatch(/must be an object with a "tokens" list/);
    expect(problem({ tokens: [] })).toMatch(/lists no tokens/);
    expect(problem({ tokens: ['x'] })).toMatch(/entry 1 must be an object/);
    expect(problem(entry({ name: '' }))).toMatch(/entry 1: "name" must be a non-empty string/);
    expect(problem(entry({ token: undefined }))).toMatch(/entry 1 \("agents"\) has no "token"/);
    expect(problem(entry({ token: '' }))).toMatch(/entry 1 \("agents"\): the token is empty/);
    expect(problem(entry({ token: 'short-token' }))).toBe(
      'the tokens: entry 1 ("agents"): the token is 11 characters; use at least 16 (openssl rand -hex 32 makes one)',
    );
    expect(problem(entry({ token: 'has a space in the middle' }))).toMatch(/printable ASCII with no spaces/);
    expect(problem(entry({ token: 42 }))).toMatch(/"token" must be a string/);
    expect(problem(entry({ repos: 'web' }))).toMatch(/"repos" must be a non-empty list of repository names/);
    expect(problem(entry({ repos: [] }))).toMatch(/"repos" must be a non-empty list/);
    expect(problem(entry({ repos: ['web', 7] }))).toMatch(/"repos": 7 is not a repository name/);
    expect(problem(entry({ repos: ["web'; DROP TABLE files; --"] }))).toMatch(/is not a repository name/);
    expect(problem(entry({ repos: ['*', 'web'] }))).toMatch(/either \["\*"\] .* or a list of names, not both/);
    expect(problem(entry({ write: 'yes' }))).toMatch(/"write" must be true or false/);
    expect(problem(entry({ writes: true }))).toMatch(/unknown field "writes" \(allowed: name, token, repos, write\)/);
  });

  it('refuses two entries with the same token, or the same name', () => {
    const twice = (b: Record<string, unknown>) => ({
      tokens: [
        { name: 'agents', token: TOKEN_A, repos: ['*'] },
        { name: 'ci', token: TOKEN_B, repos: ['web'], ...b },
      ],
    });
    expect(problem(twice({ token: TOKEN_A }))).toBe('the tokens: "agents" and "ci" have the same token');
    expect(problem(twice({ name: 'agents' }))).toBe('the tokens: entries 1 and 2 have the same name "agents"');
  });
});

describe('isLoopback', () => {
  it('knows this machine from others', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect(isLoopback(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.2', '10.0.0.1', 'example.com', '128.0.0.1', 'localhost.evil.com'])
      expect(isLoopback(host), host).toBe(false);
  });
});
