/**
 * The two CLIs end to end: the built commands (dist/, as installed) spawned
 * on a copy of the labelled fixture, their text and JSON output, exit codes
 * and messages.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOllama, fakeEmbeddingServer } from '../helpers/fake-ollama.js';
import { cleanedUpAfterEach, type TempRepo } from '../helpers/repo.js';
import { type Run, runCli } from '../helpers/run-node.js';
import { searchFixtureFiles, searchRepo } from '../helpers/search-repo.js';
import { analyzeText } from '../../src/internal.js';

const outputSchema = JSON.parse(
  readFileSync(new URL('../../resources/ocvector/search-output.schema.json', import.meta.url), 'utf8'),
) as object;
const validateOutput = new Ajv({ allErrors: true }).compile(outputSchema);

/** Runs a built CLI without a terminal, with no Ollama server unless one is given. */
function cli(
  command: 'index' | 'search',
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<Run> {
  return runCli(`oc-vector-${command}`, args, options);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape that starts a colour is what is looked for
const ANSI = /\u001b\[/;
const codeFiles = Object.keys(searchFixtureFiles()).filter((path) => !path.endsWith('.md'));

describe('oc-vector-index and oc-vector-search on the fixture', () => {
  let repo: TempRepo;
  let indexed: Run;

  beforeAll(async () => {
    repo = searchRepo();
    indexed = await cli('index', ['--no-llm', '.'], { cwd: repo.root });
  });
  afterAll(() => repo.cleanup());

  it('indexes a directory: a summary on stdout, progress on stderr, exit 0', () => {
    expect(indexed.code).toBe(0);
    const total = Object.keys(searchFixtureFiles()).length;
    expect(indexed.stdout).toMatch(new RegExp(`files +${total} scanned: ${total} added`));
    expect(indexed.stdout).toMatch(/elements +\d+ in the index/);
    expect(indexed.stderr).toMatch(new RegExp(`100% ${total}/${total} files`));
    expect(indexed.stdout).not.toMatch(ANSI);
    expect(existsSync(join(repo.root, '.ocvector', 'index.db'))).toBe(true);
  });

  it('searches from a subdirectory: finds the index above, prints file:line, name and the code, plain when piped', async () => {
    const run = await cli('search', ['hash', 'a', 'password', 'with', 'a', 'salt', '-k', '3'], {
      cwd: join(repo.root, 'src', 'auth'),
    });
    expect(run.code).toBe(0);
    const [first] = run.stdout.split('\n');
    expect(first).toMatch(/^passwords\.ts:6-10 {2}function hashPassword {2}\d\.\d{3} \[bm25#\d+ vector#\d+\]$/);
    expect(run.stdout).toContain('export function hashPassword(password: string): string {');
    expect(run.stdout).not.toMatch(ANSI);
    expect(run.stderr).toMatch(/^3 results in \d+ ms \(hybrid, prose query, \d+ elements, builtin:v2:512\)/);

    const colored = await cli('search', ['hashPassword', '-k', '1'], { cwd: repo.root, env: { FORCE_COLOR: '1' } });
    expect(colored.stdout).toMatch(ANSI);
  });

  it('--json prints the whole response, valid against the published schema, with filters applied', async () => {
    const run = await cli(
      'search',
      ['token', '--json', '-k', '4', '--path', 'src/**', '--lang', 'ts', '--type', 'method'],
      { cwd: repo.root },
    );
    expect(run.code).toBe(0);
    const response = JSON.parse(run.stdout);
    expect(validateOutput(response), JSON.stringify(validateOutput.errors)).toBe(true);
    expect(response.results.length).toBeGreaterThan(0);
    expect(response.results.length).toBeLessThanOrEqual(4);
    for (const result of response.results) {
      expect(result.type).toBe('method');
      expect(result.language).toBe('typescript');
      expect(result.path).toMatch(/^src\//);
    }
    const bare = JSON.parse((await cli('search', ['parseCsv', '--json', '--no-snippet'], { cwd: repo.root })).stdout);
    expect(validateOutput(bare)).toBe(true);
    expect(bare.results[0]).toMatchObject({ name: 'parseCsv', path: 'src/util/csv.ts', stale: false });
    expect(bare.results[0].snippet).toBeUndefined();

    // A cut snippet is code only in JSON; the count of the lines after it is a field, and text shows it as a line.
    const cut = JSON.parse(
      (await cli('search', ['parseCsv', '--json', '-k', '1', '--snippet-lines', '2'], { cwd: repo.root })).stdout,
    );
    expect(validateOutput(cut), JSON.stringify(validateOutput.errors)).toBe(true);
    const top = cut.results[0];
    expect(top.snippet.split('\n')).toHaveLength(2);
    expect(top.snippetMoreLines).toBe(top.endLine - top.startLine - 1);
    const text = await cli('search', ['parseCsv', '-k', '1', '--snippet-lines', '2'], { cwd: repo.root });
    expect(text.stdout).toContain(`… (${top.snippetMoreLines} more lines)`);
  });

  it('--explain shows how each score added up, as text and as JSON valid against the schema', async () => {
    const text = await cli('search', ['hash', 'a', 'password', '--explain', '-k', '2', '--no-snippet'], {
      cwd: repo.root,
    });
    expect(text.code).toBe(0);
    const [first] = text.stdout.split('\n');
    const score = first!.match(/^src\/auth\/passwords\.ts:6-10 {2}function hashPassword {2}(\d\.\d{3}) \[/)![1]!;
    expect(text.stdout).toMatch(/^ {4}\+ lexical +1\.000 × 1\.000 +\+1\.000$/m);
    // Its explanation ends with its score.
    expect(text.stdout).toMatch(new RegExp(`^ {6}score +${score.replace('.', '\\.')}$`, 'm'));

    const run = await cli('search', ['hash a password', '--explain', '--json', '-k', '5'], { cwd: repo.root });
    const response = JSON.parse(run.stdout);
    expect(validateOutput(response), JSON.stringify(validateOutput.errors)).toBe(true);
    expect(response.results.length).toBeGreaterThan(0);
    for (const result of response.results) {
      const { terms, score } = result.explain;
      const sum = terms.reduce((total: number, term: { contribution: number }) => total + term.contribution, 0);
      expect(sum).toBeCloseTo(score, 9);
      expect(Math.abs(score - result.score)).toBeLessThanOrEqual(5e-7);
    }
    const plain = JSON.parse(
      (await cli('search', ['hash a password', '--json', '-k', '5'], { cwd: repo.root })).stdout,
    );
    expect(plain.results.map((result: { score: number }) => result.score)).toEqual(
      response.results.map((result: { score: number }) => result.score),
    );
    expect(plain.results.every((result: object) => !('explain' in result))).toBe(true);
  });

  it('--refs lists the definition and each line that names the symbol, by file; ocvector refs is the same; --json has it all', async () => {
    const run = await cli('search', ['--refs', 'hashPassword'], { cwd: repo.root });
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('src/auth/passwords.ts  defines hashPassword');
    expect(lines[1]).toMatch(
      /^ +6 def {2}export function hashPassword\(password: string\): string \{ {2}\(function hashPassword\)$/,
    );
    expect(run.stderr).toMatch(/\d+ lines? in \d+ files?, 1 definition, in \d/);
    const umbrella = await runCli('ocvector', ['refs', 'hashPassword'], { cwd: repo.root });
    expect(umbrella.code).toBe(0);
    expect(umbrella.stdout).toBe(run.stdout);
    const json = await cli('search', ['--refs', 'hashPassword', '--json'], { cwd: repo.root });
    const response = JSON.parse(json.stdout);
    expect(response.definitions[0]).toMatchObject({
      path: 'src/auth/passwords.ts',
      startLine: 6,
      name: 'hashPassword',
    });
    expect(response.total).toBe(
      response.files.reduce((sum: number, file: { sites: unknown[] }) => sum + file.sites.length, 0),
    );
    const bad = await cli('search', ['--refs', 'not a name'], { cwd: repo.root });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/"not a name" is not a symbol name/);
  });

  it('--status says what is indexed and which files are stale', async () => {
    const clean = await cli('index', ['--status', '--json'], { cwd: join(repo.root, 'tools') });
    expect(clean.code).toBe(0);
    const status = JSON.parse(clean.stdout);
    expect(status).toMatchObject({
      root: repo.root,
      embedder: { id: 'builtin:v2:512' },
      files: { indexed: Object.keys(searchFixtureFiles()).length, failed: 0 },
      lastRun: { mode: 'full', analysisModel: null },
    });
    expect(status.stale).toEqual({ modified: [], deleted: [], added: [] });
    // Two functions, and a chunk for the module's docstring and import.
    expect(status.languages.python).toEqual({ files: 1, elements: 3 });

    writeFileSync(join(repo.root, 'src/util/new.ts'), 'export const answer = 42;\n');
    const text = await cli('index', ['--status'], { cwd: repo.root });
    expect(text.stdout).toMatch(/stale +0 modified, 0 deleted, 1 new since indexing/);
    expect(text.stdout).toContain('A src/util/new.ts');
    rmSync(join(repo.root, 'src/util/new.ts'));
  });
});

describe('oc-vector-index --dry-run', () => {
  const owned = cleanedUpAfterEach();

  it('counts files, elements and model calls per language and directory, and writes nothing', async () => {
    const repo = (owned.repo = searchRepo());
    const fake = (owned.fake = await FakeOllama.start({ models: ['qwen2.5-coder:latest'] }));
    const dry = await cli('index', ['--dry-run', '--json', '--ollama-host', fake.url], { cwd: repo.root });
    expect(dry.code).toBe(0);
    expect(existsSync(join(repo.root, '.ocvector'))).toBe(false);
    const report = JSON.parse(dry.stdout);
    const total = Object.keys(searchFixtureFiles()).length;
    expect(report.files).toMatchObject({ scanned: total, toIndex: total, unchanged: 0, toRemove: 0 });
    // Every code file is small: one model call each where there is something to ask (an element
    // other than a field with no doc comment, or no summary); Markdown is not sent to the model.
    const toAsk = codeFiles.filter((path) => {
      const file = analyzeText(path, searchFixtureFiles()[path]!);
      const undocumented = file.elements.some((e) => !e.description && e.type !== 'field' && e.type !== 'property');
      return undocumented || !file.summary;
    });
    expect(toAsk.length).toBeGreaterThan(1);
    expect(report.calls.model).toBe(toAsk.length);
    // The Python file documents every function and itself: nothing to ask its model.
    expect(toAsk).not.toContain('tools/dedupe.py');
    expect(report.byLanguage.python).toEqual({ files: 1, elements: 3, modelCalls: 0 });
    expect(report.byDirectory['src/auth'].files).toBe(2);
    expect(report.estimate.totalMs).toBeGreaterThan(report.estimate.modelMs - 1);
    expect(fake.chats).toHaveLength(0);

    // The dry run's counts are what the real run then does.
    const real = JSON.parse((await cli('index', ['--json', '--no-llm'], { cwd: repo.root })).stdout);
    expect(real.summary.elements.total).toBe(report.elements);
    expect(real.summary.embeddings.computed).toBe(report.documentsToEmbed);

    // After indexing, a dry run sees one changed file.
    writeFileSync(
      join(repo.root, 'tools/dedupe.py'),
      `${readFileSync(join(repo.root, 'tools/dedupe.py'), 'utf8')}\n\ndef count_rows(rows):\n    return len(rows)\n`,
    );
    const again = JSON.parse((await cli('index', ['--dry-run', '--json', '--no-llm'], { cwd: repo.root })).stdout);
    expect(again.files).toMatchObject({ toIndex: 1, unchanged: total - 1 });
    // Three functions and the module's chunk; only the new function is embedded.
    expect(again).toMatchObject({ elements: 4, documentsToEmbed: 1, calls: { model: 0, embedding: 0 } });
    const text = await cli('index', ['--dry-run', '--no-llm'], { cwd: repo.root });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/files +\d+ scanned: 1 to index/);
    expect(text.stdout).toMatch(/by language\n +python +1 file +4 elements +0 model calls/);
  });
});

describe('the CLIs on changes, a server that is down, and bad input', () => {
  const owned = cleanedUpAfterEach();

  it('indexes several paths at once, and flags a result stale after an edit', async () => {
    const repo = (owned.repo = searchRepo());
    const run = await cli('index', ['--no-llm', '--json', 'src/auth/passwords.ts', 'tools'], { cwd: repo.root });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).summary.files).toMatchObject({ added: 2 });
    const status = JSON.parse((await cli('index', ['--status', '--json'], { cwd: repo.root })).stdout);
    expect(status.files.indexed).toBe(2);

    writeFileSync(
      join(repo.root, 'src/auth/passwords.ts'),
      `// edited\n${readFileSync(join(repo.root, 'src/auth/passwords.ts'), 'utf8')}`,
    );
    const search = JSON.parse(
      (await cli('search', ['verifyPassword', '--json', '-k', '1'], { cwd: repo.root })).stdout,
    );
    expect(search.results[0]).toMatchObject({ name: 'verifyPassword', stale: true });
    const text = await cli('search', ['verifyPassword', '-k', '1'], { cwd: repo.root });
    expect(text.stdout).toContain('[stale: changed since indexed]');
  });

  it('falls back to lexical search, says so on stderr and in the JSON, when the embedding server is down', async () => {
    const repo = (owned.repo = searchRepo());
    const fake = await fakeEmbeddingServer(32);
    const env = { OCVECTOR_EMBEDDER: '' };
    const indexed = await cli('index', ['--no-llm', '--embedding-model', 'fake-embed', '--ollama-host', fake.url], {
      cwd: repo.root,
      env,
    });
    expect(indexed.code).toBe(0);
    expect(indexed.stdout).toContain('ollama:fake-embed');
    const up = JSON.parse(
      (await cli('search', ['checksum of a file', '--json', '--ollama-host', fake.url], { cwd: repo.root, env }))
        .stdout,
    );
    expect(up).toMatchObject({ mode: 'hybrid', embedder: 'ollama:fake-embed' });
    await fake.close();

    const down = await cli('search', ['checksum of a file', '--json', '--ollama-host', fake.url], {
      cwd: repo.root,
      env,
    });
    expect(down.code).toBe(0);
    const response = JSON.parse(down.stdout);
    expect(validateOutput(response)).toBe(true);
    expect(response).toMatchObject({ requestedMode: 'hybrid', mode: 'lexical' });
    expect(response.fallback.reason).toMatch(/ollama:fake-embed is unavailable/);
    expect(response.results[0].name).toBe('file_checksum');
    expect(down.stderr).toMatch(/^warning: the embedder ollama:fake-embed is unavailable/);
  });

  it('an index never calls the Ollama server it recorded: searches ask the one named, and --mode vector fails, naming it, when it is down', async () => {
    const repo = (owned.repo = searchRepo());
    const fake = (owned.fake = await fakeEmbeddingServer(32));
    // No OLLAMA_HOST: only the flag at index time says where the server is.
    const env = { OCVECTOR_EMBEDDER: '', OLLAMA_HOST: '' };
    const indexed = await cli('index', ['--no-llm', '--embedding-model', 'fake-embed', '--ollama-host', fake.url], {
      cwd: repo.root,
      env,
    });
    expect(indexed.code).toBe(0);
    const named = ['checksum of a file', '--json', '--mode', 'vector', '--ollama-host', fake.url];
    const up = await cli('search', named, { cwd: repo.root, env });
    expect(up.code).toBe(0);
    expect(JSON.parse(up.stdout)).toMatchObject({ mode: 'vector', embedder: 'ollama:fake-embed' });
    expect(up.stderr).toBe('');
    const embeds = fake.embeds.length;

    // The user's OLLAMA_HOST, where nothing answers: the recorded server is not tried instead.
    const down = { ...env, OLLAMA_HOST: await FakeOllama.refusingUrl() };
    const vector = await cli('search', ['checksum of a file', '--mode', 'vector'], { cwd: repo.root, env: down });
    expect(vector.code).toBe(1);
    expect(vector.stdout).toBe('');
    expect(vector.stderr).toMatch(
      /^oc-vector-search: vector search needs the embedder ollama:fake-embed, which is unavailable: no Ollama server answers at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\): start it with `ollama serve`/,
    );
    expect(vector.stderr).toContain(down.OLLAMA_HOST);

    const hybrid = await cli('search', ['checksum of a file'], { cwd: repo.root, env: down });
    expect(hybrid.code).toBe(0);
    expect(hybrid.stderr).toMatch(
      /^warning: the embedder ollama:fake-embed is unavailable \(no Ollama server answers at/,
    );
    expect(hybrid.stdout).toContain('file_checksum');
    expect(fake.embeds.length).toBe(embeds);
  });

  it('with no model server, analysis is syntax-tree only after one check, with a note', async () => {
    const repo = (owned.repo = searchRepo());
    const run = await cli('index', ['.'], { cwd: repo.root });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /^note: no analysis model qwen2\.5-coder at http:\/\/127\.0\.0\.1:9: syntax-tree analysis only/,
    );
    expect(run.stdout).not.toMatch(/analysis calls/);
    const status = JSON.parse((await cli('index', ['--status', '--json'], { cwd: repo.root })).stdout);
    expect(status.lastRun).toMatchObject({ analysisModel: null, modelCalls: 0 });
  });

  it('no index: a clear message and exit code 3, in text and JSON', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'ocvector-noindex-'));
    try {
      const run = await cli('search', ['anything'], { cwd: empty });
      expect(run).toMatchObject({ code: 3, stdout: '' });
      expect(run.stderr).toMatch(/^oc-vector-search: no index at or above .*: run oc-vector-index first/);
      const json = await cli('search', ['anything', '--json'], { cwd: empty });
      expect(json.code).toBe(3);
      const error = JSON.parse(json.stdout);
      expect(error).toMatchObject({ error: { kind: 'no-index' } });
      // The error object is part of the published schema too.
      expect(validateOutput(error), JSON.stringify(validateOutput.errors)).toBe(true);
      expect(validateOutput({ error: { kind: 'unheard-of', message: 'x' } })).toBe(false);
      expect((await cli('index', ['--status'], { cwd: empty })).code).toBe(3);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it.each([
    ['search', [], /missing required argument 'query'/],
    ['search', ['x', '-k', '0'], /-k must be an integer from 1 to 100, not "0"/],
    ['search', ['x', '-k', 'many'], /-k must be an integer/],
    ['search', ['x', '--lang', 'cobol'], /--lang: unknown cobol; choose from typescript, tsx/],
    ['search', ['x', '--type', 'widget'], /--type: unknown widget/],
    ['search', ['x', '--mode', 'fuzzy'], /argument 'fuzzy' is invalid/],
    ['search', ['x', '--frobnicate'], /unknown option '--frobnicate'/],
    ['index', ['no/such/dir'], /no\/such\/dir: no such file or directory/],
    ['index', ['--status', '--dry-run'], /--status and --dry-run cannot be used together/],
    ['index', ['--threads', '0'], /--threads must be an integer from 1 to 256/],
    ['index', ['--embedder', 'gpt'], /argument 'gpt' is invalid/],
    ['index', ['--no-llm', '--model', 'x'], /--model names an analysis model: it cannot go with --no-llm/],
  ] as const)('%s %j is a usage error (exit 2)', async (command, args, message) => {
    const repo = (owned.repo = searchRepo());
    const run = await cli(command, [...args], { cwd: repo.root });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
    expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('--help and --version print to stdout and exit 0', async () => {
    const repo = (owned.repo = searchRepo());
    const help = await cli('search', ['--help'], { cwd: repo.root });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: oc-vector-search \[options\] <query\.\.\.>/);
    const version = await cli('index', ['--version'], { cwd: repo.root });
    expect(version.stdout.trim()).toBe(
      JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version,
    );
  });

  it('a JSON usage error is JSON on stdout too', async () => {
    const repo = (owned.repo = searchRepo());
    const run = await cli('search', ['x', '-k', '0', '--json'], { cwd: repo.root });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      error: { kind: 'usage', message: '-k must be an integer from 1 to 100, not "0"' },
    });
  });
});
