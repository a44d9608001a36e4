/**
 * `oc-vector-search --files`: an issue, given on the command line or on
 * standard input (`-`), answered with files and their evidence; the JSON
 * response; --files beside --refs refused.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempRepo, type TempRepo } from '../helpers/repo.js';
import { runCli } from '../helpers/run-node.js';

const CLI = new URL('../../dist/cli/oc-vector-search.js', import.meta.url).pathname;

let repo: TempRepo;

beforeAll(async () => {
  repo = tempRepo({
    'lib/ledger/accounts.py':
      'class Ledger:\n    def post_entry(self, entry):\n        if entry.amount < 0:\n            raise ValueError("a ledger entry must not be negative")\n        self.entries.append(entry)\n',
    'lib/ledger/report.py': 'def monthly_report(ledger):\n    return sum(entry.amount for entry in ledger.entries)\n',
    'tests/test_accounts.py': 'def test_post_entry_negative():\n    # a ledger entry must not be negative\n    pass\n',
  });
  expect((await runCli('oc-vector-index', ['--no-llm', '.'], { cwd: repo.root })).code).toBe(0);
}, 120_000);

afterAll(() => repo?.cleanup());

const ISSUE = [
  'Refunds are rejected',
  '',
  'Posting a refund fails:',
  '```',
  'Traceback (most recent call last):',
  '  File "/opt/app/lib/ledger/accounts.py", line 4, in post_entry',
  'ValueError: a ledger entry must not be negative',
  '```',
].join('\n');

describe('oc-vector-search --files', () => {
  it('reads the issue from standard input and prints files with their evidence', () => {
    const run = spawnSync(process.execPath, [CLI, '--files', '-', '-k', '2'], {
      cwd: repo.root,
      input: ISSUE,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', OLLAMA_HOST: 'http://127.0.0.1:9' },
    });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^ 1\. lib\/ledger\/accounts\.py {2}\d/);
    expect(run.stdout).toContain('frame: in the traceback (post_entry)');
    expect(run.stdout).toContain('error: raises "a ledger entry must not be negative"');
    expect(run.stderr).toMatch(/2 files in .*an issue of \d+ characters/);
  });

  it('answers JSON with --json', async () => {
    const run = await runCli('oc-vector-search', ['--files', '--json', '-k', '3', ISSUE], { cwd: repo.root });
    expect(run.code, run.stderr).toBe(0);
    const response = JSON.parse(run.stdout);
    expect(response.files[0]).toMatchObject({ repo: expect.any(String), path: 'lib/ledger/accounts.py' });
    expect(response.files[0].evidence.map((evidence: { kind: string }) => evidence.kind)).toContain('frame');
    expect(response.length).toBe(ISSUE.length);
  });

  it('refuses --files with --refs in one sentence (exit 2)', async () => {
    const run = await runCli('oc-vector-search', ['--files', '--refs', 'post_entry'], { cwd: repo.root });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('--refs and --files ask different questions');
  });
});
