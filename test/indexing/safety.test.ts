/** What an index must never do: mix embedders, store secrets, let two writers in, or lose its footing on bad input. */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Indexer } from '../../src/indexing/indexer.js';
import { WriteLock } from '../../src/store/embedded/lock.js';
import { StoreError } from '../../src/store/errors.js';
import { openIndex } from '../../src/store/embedded/open-index.js';
import { FakeOllama } from '../helpers/fake-ollama.js';
import { readIndex } from '../helpers/index-state.js';
import { cleanedUpAfterEach, eventLog, SAMPLE_FILES, tempRepo } from '../helpers/repo.js';

const owned = cleanedUpAfterEach();

const builtin = (path: string, extra: Partial<ConstructorParameters<typeof Indexer>[0]> = {}) =>
  new Indexer({ path, embedder: 'builtin', llm: false, ...extra });

describe('switching the embedder', () => {
  it('refuses to mix vectors, says how to rebuild, and rebuilds on request', async () => {
    const repo = (owned.repo = tempRepo(SAMPLE_FILES));
    const first = await builtin(repo.root).run();
    expect(first.embedder).toMatch(/^builtin:v\d+:512$/);

    const fake = (owned.fake = await FakeOllama.start({
      embed: (request) => ({ body: { embeddings: (request.input as string[]).map((_, i) => [1, i + 1, 2, 3]) } }),
    }));
    const switched = new Indexer({ path: repo.root, embedder: { host: fake.url, model: 'other-embed' }, llm: false });
    const error = await switched.run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe('EMBEDDER_MISMATCH');
    expect((error as Error).message).toMatch(
      /built with the embedder builtin:v2:512 .*not ollama:other-embed \(4\).*--rebuild/,
    );
    // Nothing was touched by the refused run.
    expect((await readIndex(join(repo.root, '.ocvector'))).elements).toHaveLength(first.elements.total);

    const rebuilt = await switched.run({ rebuild: true });
    expect(rebuilt.embedder).toBe('ollama:other-embed');
    expect(rebuilt.elements.total).toBe(first.elements.total);
    expect(rebuilt.index.vectors).toBe(first.elements.total);
    const state = await readIndex(join(repo.root, '.ocvector'));
    expect(state.consistency.ok).toBe(true);
    // Searching or indexing with the old one is now the refused switch.
    await expect(builtin(repo.root).run()).rejects.toThrow(/built with the embedder ollama:other-embed/);
  });
});

describe('secrets and ignored files', () => {
  it('never reads them: their names and contents are nowhere in the database', async () => {
    const SECRET = 'sk-live-7f3a9c1e5b2d4f6a8c0e';
    const repo = (owned.repo = tempRepo({
      ...SAMPLE_FILES,
      '.env': `API_KEY=${SECRET}\n`,
      '.env.production': `API_KEY=${SECRET}\n`,
      'config/server.pem': `-----BEGIN PRIVATE KEY-----\n${SECRET}\n`,
      'config/tls.key': SECRET,
      'deploy/id_rsa': SECRET,
      'deploy/credentials.json': `{"token":"${SECRET}"}`,
      '.npmrc': `//registry.npmjs.org/:_authToken=${SECRET}\n`,
      // An ignore file cannot bring a secret back.
      '.gitignore': 'generated/\n*.log\n!.env\n',
      '.ocvectorignore': 'private/\n',
      'generated/out.ts': `export const token = '${SECRET}';\n`,
      'debug.log': SECRET,
      'private/notes.md': `# Notes\n${SECRET}\n`,
      'node_modules/dep/index.js': `module.exports = '${SECRET}';\n`,
      'package-lock.json': `{"secret": "${SECRET}"}`,
      'dist/bundle.js': `var s = '${SECRET}';\n`,
      'src/nested/.gitignore': 'local.ts\n',
      'src/nested/local.ts': `export const local = '${SECRET}';\n`,
      'src/nested/kept.ts': 'export const kept = 1;\n',
    }));
    const log = eventLog();
    const summary = await builtin(repo.root, { onEvent: log.onEvent }).run();
    const state = await readIndex(join(repo.root, '.ocvector'));
    const paths = state.files.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['src/users.ts', 'src/nested/kept.ts', '.gitignore']));
    for (const hidden of [
      '.env',
      '.env.production',
      'config/server.pem',
      'config/tls.key',
      'deploy/id_rsa',
      'deploy/credentials.json',
      '.npmrc',
      'generated/out.ts',
      'debug.log',
      'private/notes.md',
      'package-lock.json',
      'src/nested/local.ts',
    ]) {
      expect(paths).not.toContain(hidden);
    }
    expect(paths.some((p) => p.startsWith('node_modules/') || p.startsWith('dist/'))).toBe(false);
    expect(
      log
        .of('excluded')
        .filter((e) => e.reason === 'secret')
        .map((e) => e.path)
        .sort(),
    ).toEqual(
      [
        '.env',
        '.env.production',
        '.npmrc',
        'config/server.pem',
        'config/tls.key',
        'deploy/credentials.json',
        'deploy/id_rsa',
      ].sort(),
    );
    expect(summary.files.scanned).toBe(paths.length);
    // The bytes of every file the index wrote: the secret is in none of them.
    const indexDir = join(repo.root, '.ocvector');
    for (const name of readdirSync(indexDir)) {
      expect(readFileSync(join(indexDir, name)).includes(SECRET), name).toBe(false);
    }
    expect(statSync(join(indexDir, 'index.db')).mode & 0o777).toBe(0o600);
    expect(statSync(indexDir).mode & 0o777).toBe(0o700);
  });
});

describe('one writer at a time', () => {
  it('fails a second indexer with a clear message, lets it wait, and takes over a dead one', async () => {
    const repo = (owned.repo = tempRepo(SAMPLE_FILES));
    const indexer = builtin(repo.root);
    await indexer.run();
    const held = await WriteLock.acquire(indexer.indexDir);
    await expect(builtin(repo.root).run()).rejects.toThrow(/another indexer \(pid \d+ on .*\) is writing this index/);
    // Readers are not blocked by a writer.
    expect((await readIndex(indexer.indexDir)).consistency.ok).toBe(true);
    const waiting = builtin(repo.root, { lockWaitMs: 5_000 }).run();
    setTimeout(() => held.release(), 300);
    await expect(waiting).resolves.toMatchObject({ files: { unchanged: Object.keys(SAMPLE_FILES).length } });
    // A lock whose owner is gone (pid 2^22 + 1 is above Linux's pid_max default) is stale.
    writeFileSync(
      join(indexer.indexDir, 'index.lock'),
      JSON.stringify({ pid: 4_194_305, host: (await import('node:os')).hostname(), since: 0 }),
    );
    await expect(builtin(repo.root).run()).resolves.toBeDefined();
  });
});

describe('aborting', () => {
  it('stops at the signal, keeps what was committed consistent, and the next run finishes', async () => {
    const repo = (owned.repo = tempRepo());
    for (let i = 0; i < 300; i++)
      repo.write(
        `src/module${i}.ts`,
        `/** Module ${i}. */\nexport function compute${i}(x: number): number {\n  return x * ${i};\n}\n`,
      );
    const controller = new AbortController();
    const log = eventLog();
    const indexer = builtin(repo.root, {
      signal: controller.signal,
      onEvent: (event) => {
        log.onEvent(event);
        if (event.type === 'progress' && event.done === 100) controller.abort();
      },
    });
    await expect(indexer.run()).rejects.toThrow(/abort/i);
    expect(log.of('run-aborted')).toHaveLength(1);
    const partial = await readIndex(indexer.indexDir);
    expect(partial.consistency.ok).toBe(true);
    expect(partial.elements.length).toBeGreaterThan(0);
    expect(partial.elements.length).toBeLessThan(300);
    const done = await builtin(repo.root).run();
    expect(done.files.added + done.files.unchanged).toBe(300);
    expect((await readIndex(indexer.indexDir)).elements).toHaveLength(300);
  });
});

describe('bad input', () => {
  it('records binary, huge, empty and invalid UTF-8 files with a reason, and indexes the rest', async () => {
    const repo = (owned.repo = tempRepo({
      ...SAMPLE_FILES,
      'assets/blob.dat': Buffer.from([0, 1, 2, 3, 0, 255, 0, 7]),
      'src/huge.ts': `export const big = "${'x'.repeat(2 << 20)}";\n`,
      'src/empty.ts': '',
      'src/latin1.ts': Buffer.concat([
        Buffer.from('/** Caf'),
        Buffer.from([0xe9]),
        Buffer.from(' au lait. */\nexport function coffee(): string {\n  return "ok";\n}\n'),
      ]),
    }));
    const log = eventLog();
    const summary = await builtin(repo.root, { onEvent: log.onEvent }).run();
    const state = await readIndex(join(repo.root, '.ocvector'));
    const status = Object.fromEntries(state.files.map((f) => [f.path, `${f.status}: ${f.error ?? ''}`]));
    expect(status['assets/blob.dat']).toMatch(/^skipped: binary/);
    expect(status['src/huge.ts']).toMatch(/^skipped: too-large/);
    expect(status['src/empty.ts']).toMatch(/^skipped: empty/);
    expect(status['src/latin1.ts']).toMatch(/^indexed/);
    expect(state.elements.some((e) => e.name === 'coffee')).toBe(true);
    expect(
      log.events.some((e) => e.type === 'analysis' && e.event.type === 'warning' && /UTF-8/.test(e.event.message)),
    ).toBe(true);
    expect(summary.files.skipped).toBe(3);
    // Skipped files are not read again while unchanged.
    const again = await builtin(repo.root).run();
    expect(again.files.skipped).toBe(0);
  });

  it('a damaged FAISS file: a reader says what to do, and the next run embeds its vectors again', async () => {
    const repo = (owned.repo = tempRepo(SAMPLE_FILES));
    const indexer = builtin(repo.root);
    const summary = await indexer.run();
    const file = readdirSync(indexer.indexDir).find((n) => n.endsWith('.ocvx'))!;
    const bytes = readFileSync(join(indexer.indexDir, file));
    bytes[bytes.length - 10]! ^= 0xff;
    writeFileSync(join(indexer.indexDir, file), bytes);
    // The built-in embedder's vectors were in that file alone (vector-file.ts): a reader cannot embed them.
    await expect(openIndex(indexer.indexDir)).rejects.toThrow(
      /have no vector \(the index file could not be read .*(checksum|corrupt).*run oc-vector-index/i,
    );
    const repaired = await indexer.run();
    expect(repaired.elements.total).toBe(summary.elements.total);
    expect(repaired.index.written).toBe(true);
    const state = await readIndex(indexer.indexDir);
    expect(state.consistency).toMatchObject({ ok: true, vectors: summary.elements.total });
  });

  it('reports a damaged database clearly', async () => {
    const repo = (owned.repo = tempRepo(SAMPLE_FILES));
    const indexer = builtin(repo.root);
    await indexer.run();
    writeFileSync(join(indexer.indexDir, 'index.db'), Buffer.alloc(8192, 7));
    for (const suffix of ['-wal', '-shm']) writeFileSync(join(indexer.indexDir, `index.db${suffix}`), '');
    await expect(indexer.run()).rejects.toThrow(/index database .* is damaged.*delete .*\.ocvector and index again/);
  });
});
