/**
 * oc-vector-mcp driven by the official MCP Inspector's CLI mode
 * (@modelcontextprotocol/inspector, pinned), as a user checks a server
 * before registering it: it lists the five tools and calls them.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../src/index.js';
import type { TempRepo } from '../helpers/repo.js';
import { searchRepo } from '../helpers/search-repo.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const INSPECTOR = join(ROOT, 'node_modules', '.bin', 'mcp-inspector');
const SERVER = join(ROOT, 'dist', 'cli', 'oc-vector-mcp.js');

describe('oc-vector-mcp under the MCP Inspector CLI', () => {
  let repo: TempRepo;
  beforeAll(async () => {
    repo = searchRepo();
    await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
  });
  afterAll(() => repo.cleanup());

  /** One Inspector call on the server as an ad-hoc command (no catalog file is read or written): its JSON answer. */
  const inspect = (args: string[]) =>
    new Promise<unknown>((resolve, reject) => {
      execFile(
        INSPECTOR,
        ['--cli', ...args, '--', process.execPath, SERVER, '--no-llm'],
        { cwd: repo.root, timeout: 60_000, env: { ...process.env, OLLAMA_HOST: 'http://127.0.0.1:9' } },
        (error, stdout, stderr) => {
          if (error) reject(new Error(`${error.message}\n${stderr}`));
          else resolve(JSON.parse(stdout));
        },
      );
    });

  it('lists codebase_search, find_references, find_files_to_change, index_status and reindex, with their input schemas', async () => {
    const { tools } = (await inspect(['--method', 'tools/list'])) as {
      tools: { name: string; inputSchema: { properties: Record<string, unknown> } }[];
    };
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'codebase_search',
      'find_files_to_change',
      'find_references',
      'index_status',
      'reindex',
    ]);
    expect(Object.keys(tools.find((tool) => tool.name === 'codebase_search')!.inputSchema.properties)).toContain(
      'query',
    );
  });

  it('finds no schema portability problem under --strict (a nullable field is anyOf, not a type array)', async () => {
    const stderr = await new Promise<string>((resolve, reject) => {
      execFile(
        INSPECTOR,
        ['--cli', '--method', 'tools/list', '--strict', '--', process.execPath, SERVER, '--no-llm', '-q'],
        { cwd: repo.root, timeout: 60_000, env: { ...process.env, OLLAMA_HOST: 'http://127.0.0.1:9' } },
        (error, _stdout, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(err)),
      );
    });
    expect(stderr).not.toMatch(/Warning: tool|Error: tool|Schema portability|across \d+ tools?/);
  });

  it('calls codebase_search and index_status', async () => {
    const search = (await inspect([
      '--method',
      'tools/call',
      '--tool-name',
      'codebase_search',
      '--tool-arg',
      'query=hash a password with a salt',
    ])) as { content: { text: string }[]; isError?: boolean };
    expect(search.isError ?? false).toBe(false);
    expect(search.content[0]!.text).toMatch(/src\/auth\/passwords\.ts/);

    const status = (await inspect(['--method', 'tools/call', '--tool-name', 'index_status'])) as {
      content: { text: string }[];
      structuredContent?: { root?: string };
    };
    expect(status.content[0]!.text).toContain(repo.root);
  });
});
