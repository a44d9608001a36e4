import { spawnSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer, type CodebaseSearchOutput } from '../../src/index.js';
import { FakeOllama, type ChatRequest } from '../helpers/fake-ollama.js';
import { cleanedUpAfterEach, tempRepo, type TempRepo } from '../helpers/repo.js';
import { runNode } from '../helpers/run-node.js';
import { searchRepo } from '../helpers/search-repo.js';

// The examples run as a user runs them (`npm run example:library`, `npm run
// example:agent`): vite-node on the TypeScript file, importing the compiled
// package (dist/) by its own name.
const root = fileURLToPath(new URL('../..', import.meta.url));
const VITE_NODE = join(root, 'node_modules/vite-node/vite-node.mjs');
const NO_MODEL = { OCVECTOR_EMBEDDER: 'builtin', OCVECTOR_LLM: 'off', OLLAMA_HOST: 'http://127.0.0.1:9' };

const run = (script: string, args: string[] = [], env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [script, ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, ...env },
  });

/** Runs an example as `npm run example:*` does. */
function example(name: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  return runNode([VITE_NODE, join(root, 'examples', name), '--', ...args], {
    cwd: options.cwd,
    timeout: 120_000,
    env: { ...process.env, ...options.env },
  });
}

describe('examples/library.ts', () => {
  it('indexes a directory, searches it with filters, and re-indexes only what changed', async () => {
    const repo = tempRepo();
    try {
      cpSync(join(root, 'src'), join(repo.root, 'src'), { recursive: true });
      const args = [join(repo.root, 'src'), 'write the index file atomically'];
      const first = await example('library.ts', args, { cwd: root, env: NO_MODEL });
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/with builtin:v2:512\n {2}files: \d+ added/);
      const hits = [...first.stdout.matchAll(/^ {2}(\d\.\d{3}) {2}(\S+):(\d+)-(\d+) {2}(\S+) (\S+)$/gm)];
      expect(hits).toHaveLength(5);
      expect(hits[0]![6]).toBe('FaissIndex.write'); // "Writes the index atomically (temporary file, fsync, rename)"
      expect(first.stdout).toMatch(/\nTypeScript methods for "search the index": \S+/);
      expect(existsSync(join(repo.root, 'src', '.ocvector', 'index.db'))).toBe(true);
      const second = await example('library.ts', args, { cwd: root, env: NO_MODEL });
      expect(second.stdout).toMatch(/files: 0 added, 0 changed, \d+ unchanged/);
      expect(second.stdout).toMatch(/\(0 embedded now\)/);
    } finally {
      repo.cleanup();
    }
  });
});

describe('examples/agent.ts against the Ollama-speaking test server', () => {
  const owned = cleanedUpAfterEach();
  let repo: TempRepo;

  beforeAll(async () => {
    repo = searchRepo();
    await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
  });
  afterAll(() => repo.cleanup());

  const lastToolOutput = (request: ChatRequest) => {
    const message = request.messages.at(-1)!;
    expect(message).toMatchObject({ role: 'tool', tool_name: 'codebase_search' });
    return JSON.parse(message.content) as CodebaseSearchOutput;
  };

  it('registers the tool; the model calls codebase_search, gets the code, and answers from it', async () => {
    const fake = (owned.fake = await FakeOllama.start({
      models: ['tool-model:latest'],
      chat: (request, index) => {
        if (index === 0)
          return {
            toolCalls: [
              { function: { name: 'codebase_search', arguments: { query: 'hash a password with a salt', k: 3 } } },
            ],
          };
        // The answer is made from what the tool returned, so it can only be right if the tool was.
        const [top] = lastToolOutput(request).results;
        return { content: `Passwords are hashed by ${top!.name} in ${top!.path}:${top!.start_line}-${top!.end_line}.` };
      },
    }));
    const result = await example(
      'agent.ts',
      ['How are passwords hashed?', '--model', 'tool-model', '--dir', repo.root],
      { cwd: root, env: { ...NO_MODEL, OLLAMA_HOST: fake.url } },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('Passwords are hashed by hashPassword in src/auth/passwords.ts:6-10.\n');
    expect(result.stderr).toContain('→ codebase_search {"query":"hash a password with a salt","k":3}');
    expect(result.stderr).toMatch(/← 3 results, first src\/auth\/passwords\.ts:6 hashPassword/);

    expect(fake.chats).toHaveLength(2);
    const [first, second] = fake.chats;
    expect(first!.tools).toEqual([
      {
        type: 'function',
        function: expect.objectContaining({
          name: 'codebase_search',
          parameters: expect.objectContaining({ required: ['query'] }),
        }),
      },
    ]);
    expect(first!.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(first!.messages[1]!.content).toBe('How are passwords hashed?');
    expect(second!.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(lastToolOutput(second!).results[0]!.snippet).toContain(
      'export function hashPassword(password: string): string {',
    );
  });

  it('hands bad tool calls back to the model as errors, and makes a model that keeps calling tools answer', async () => {
    const fake = (owned.fake = await FakeOllama.start({
      models: ['tool-model:latest'],
      chat: (request, index) => {
        if (!request.tools) return { content: 'Enough searching: see src/net/retry.ts.' };
        if (index === 0)
          return {
            toolCalls: [
              { function: { name: 'codebase_search', arguments: { k: 500 } } },
              { function: { name: 'read_file', arguments: { path: '/etc/passwd' } } },
            ],
          };
        return {
          toolCalls: [
            { function: { name: 'codebase_search', arguments: { query: 'retry', path_prefix: '../../..' } } },
          ],
        };
      },
    }));
    const result = await example('agent.ts', ['Where is retrying done?', '--model', 'tool-model', '--dir', repo.root], {
      cwd: root,
      env: { ...NO_MODEL, OLLAMA_HOST: fake.url },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('Enough searching: see src/net/retry.ts.\n');
    // Four rounds with tools, then one without.
    expect(fake.chats.map((chat) => Boolean(chat.tools))).toEqual([true, true, true, true, false]);
    const toolMessages = fake.chats[1]!.messages.filter((m) => m.role === 'tool').map(
      (m) => JSON.parse(m.content) as { error?: string },
    );
    expect(toolMessages.map((m) => m.error)).toEqual([
      'invalid arguments: "query" is required; k must be <= 20',
      'unknown tool "read_file"; available: codebase_search',
    ]);
    expect(JSON.parse(fake.chats[2]!.messages.at(-1)!.content).error).toMatch(/^path_prefix refused/);
  });

  it('says what is missing when there is no model server, or it fails mid-answer', async () => {
    const down = await example('agent.ts', ['anything', '--dir', repo.root], {
      cwd: root,
      env: { ...NO_MODEL, OLLAMA_HOST: await FakeOllama.refusingUrl() },
    });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(
      /^no model qwen2\.5-coder at http:\/\/127\.0\.0\.1:\d+: start Ollama and run `ollama pull qwen2\.5-coder`, or name another model with --model\n$/,
    );

    const fake = (owned.fake = await FakeOllama.start({
      models: ['tool-model:latest'],
      chat: () => ({ status: 500, body: { error: 'model crashed' } }),
    }));
    const failing = await example('agent.ts', ['anything', '--model', 'tool-model', '--dir', repo.root], {
      cwd: root,
      env: { ...NO_MODEL, OLLAMA_HOST: fake.url },
    });
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain('the model server failed: model crashed');
  });
});

describe('examples/faiss-demo.mjs', () => {
  it('shows the FAISS binding: an exact and an HNSW index, searched, saved and reloaded', () => {
    const result = run('examples/faiss-demo.mjs');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/FAISS on openblas \(openmp\)/);
    const recall = Number(/HNSW recall@10 against exact search: ([\d.]+)/.exec(result.stdout)?.[1]);
    expect(recall).toBeGreaterThanOrEqual(0.9);
    expect(result.stdout).toMatch(/reloaded index gives identical results/);
  });
});
