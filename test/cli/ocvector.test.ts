/** `ocvector <command>`: the one command that runs each of the oc-vector-* programs. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TempRepo } from '../helpers/repo.js';
import { type Run, runCli } from '../helpers/run-node.js';
import { searchRepo } from '../helpers/search-repo.js';

const OCVECTOR = new URL('../../dist/cli/ocvector.js', import.meta.url).pathname;

function ocvector(args: string[], cwd: string): Promise<Run> {
  return runCli('ocvector', args, { cwd });
}

describe('ocvector', () => {
  let repo: TempRepo;
  let indexed: Run;

  beforeAll(async () => {
    repo = searchRepo();
    indexed = await ocvector(['index', '--no-llm', '--embedder', 'builtin', '.'], repo.root);
  });
  afterAll(() => repo.cleanup());

  it('indexes, searches and reports status through its subcommands', async () => {
    expect(indexed.code, indexed.stderr).toBe(0);
    expect(indexed.stdout).toMatch(/elements +\d+ in the index/);

    const searched = await ocvector(
      ['search', 'hash a password with a salt', '-k', '2', '--json'],
      join(repo.root, 'src'),
    );
    expect(searched.code, searched.stderr).toBe(0);
    expect(JSON.parse(searched.stdout).results[0].name).toBe('hashPassword');

    const status = await ocvector(['status'], repo.root);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/files/);
  });

  it('ends quietly with code 0 when the reader closes its output early (| head)', async () => {
    const child = spawn(process.execPath, [OCVECTOR, 'search', 'password', '-k', '20', '--json'], {
      cwd: repo.root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Closed before the first write: every write the command makes fails with EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toMatch(/EPIPE|Error|at /);
    expect(code).toBe(0);
  });

  it('lists its commands, and names an unknown one with the choices', async () => {
    const help = await ocvector([], repo.root);
    expect(help.code).toBe(0);
    for (const command of ['index', 'search', 'refs', 'status', 'mcp', 'eval'])
      expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    const unknown = await ocvector(['serach', 'x'], repo.root);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'ocvector: unknown command "serach"; choose from index, search, refs, status, mcp, eval (ocvector --help)\n',
    );
  });
});
