/**
 * oc-vector-index with a slow analysis model, off a terminal (issue 57): progress lines while the
 * model has not answered, the time left from the pace it answers at, and a run stopped with
 * Ctrl-C that resumes without asking the model again about the files it had answered. The
 * built CLI (dist/) is spawned against a fake Ollama server that counts the requests.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { FakeOllama } from '../helpers/fake-ollama.js';
import { cleanedUpAfterEach, tempRepo } from '../helpers/repo.js';
import { runCli } from '../helpers/run-node.js';

const CLI = new URL('../../dist/cli/oc-vector-index.js', import.meta.url).pathname;

/** Small TypeScript files, each with one undocumented function: one model call each. */
function repoOf(count: number) {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++)
    files[`src/f${i}.ts`] = `export function add${i}(a: number) {\n  return a + ${i};\n}\n`;
  const repo = tempRepo(files);
  repo.age();
  return repo;
}

/** A valid answer for the file the prompt names. */
function answerFor(prompt: string): string {
  const path = /src\/f\d+\.ts/.exec(prompt)?.[0] ?? 'src/f0.ts';
  return JSON.stringify({ 'file-path': path, language: 'typescript', summary: 'Adds.', imports: [], elements: [] });
}

function askedPaths(fake: FakeOllama, from = 0): string[] {
  return fake.chats.slice(from).map((chat) => /src\/f\d+\.ts/.exec(chat.messages[0]!.content)![0]);
}

const args = (fake: FakeOllama) => ['--model', 'coder', '--ollama-host', fake.url];

describe('oc-vector-index with a slow analysis model, output not a terminal', () => {
  const owned = cleanedUpAfterEach();

  it('prints a line every 5 s while the model has not answered, then the time left from its pace', async () => {
    const repo = (owned.repo = repoOf(3));
    // The first answer takes 7 s (a model being loaded), the others 2 s.
    const fake = (owned.fake = await FakeOllama.start({
      chat: (request, index) => ({
        content: answerFor(request.messages[0]!.content),
        delayMs: index === 0 ? 7_000 : 2_000,
      }),
    }));
    const run = await runCli('oc-vector-index', args(fake), { cwd: repo.root, timeout: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split('\n').filter((line) => /^\d+% /.test(line));
    // At the start, then while no file is done yet and the model has not answered.
    expect(lines[0]).toMatch(/^0% 0\/3 files$/);
    expect(lines).toContainEqual(
      expect.stringMatching(/^0% 0\/3 files {2}model 0\/3 calls, waiting for its first answer \([\d.]+ s\)$/),
    );
    // Before the end, a line with the time a call takes as measured, and the time left from it.
    const measured = lines.find((line) => /^\d+% [12]\/3 files/.test(line) && /a call/.test(line));
    expect(measured, run.stderr).toMatch(/ETA [\d.]+ s {2}model [12]\/3 calls, [\d.]+ s a call$/);
    expect(lines.at(-1)).toMatch(/^100% 3\/3 files/);
    expect(fake.chats).toHaveLength(3);
  }, 60_000);

  it('keeps the answers of a run stopped with Ctrl-C: the next run asks only about the other files', async () => {
    const repo = (owned.repo = repoOf(6));
    let hang = true;
    const fake = (owned.fake = await FakeOllama.start({
      // The fourth call of the first run never comes back: the run is stopped while it waits.
      chat: (request, index) => ({
        content: answerFor(request.messages[0]!.content),
        delayMs: hang && index === 3 ? 60_000 : 100,
      }),
    }));
    const child = spawn(process.execPath, [CLI, ...args(fake)], {
      cwd: repo.root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', OCVECTOR_EMBEDDER: 'builtin' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let running = true;
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => {
        running = false;
        resolve(code);
      }),
    );
    const deadline = Date.now() + 30_000;
    while (running && fake.chats.length < 4 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fake.chats, stderr).toHaveLength(4);
    child.kill('SIGINT');
    expect(await exited, stderr).toBe(130);
    expect(stderr).toContain(
      "note: the model's answers for 3 files are kept in the index: the next run asks only about the other files",
    );
    const answered = askedPaths(fake).slice(0, 3);

    hang = false;
    const resumed = await runCli('oc-vector-index', [...args(fake), '--json'], { cwd: repo.root });
    expect(resumed.code, resumed.stderr).toBe(0);
    const askedAgain = askedPaths(fake, 4);
    expect(askedAgain).toHaveLength(3);
    expect(askedAgain.filter((path) => answered.includes(path))).toEqual([]);
    expect(JSON.parse(resumed.stdout).summary.calls.model).toBe(3);
  }, 60_000);
});
