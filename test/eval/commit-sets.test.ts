/**
 * The change-location (commit) sets: the builder's rules on a small git
 * repository made here, the source-file rules, the whole-file BM25
 * baseline on a hand-checked fixture, file ranks, the committed sets'
 * shape, and `npm run eval` going on without a set's git directory. Nothing
 * here reads the real repositories' histories.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEvalSet } from '../../src/internal.js';
import { COMMIT_CORPORA, COMMIT_SET_FILES, commitSetSource, gitDirOf } from '../../eval/lib/commit-corpora.js';
import { distinctFiles, fileRank } from '../../eval/lib/commit-eval.js';
import {
  buildCommitSet,
  cleanSubject,
  layOutSnapshot,
  resolveCommit,
  subjectProblem,
  withoutPrefix,
} from '../../eval/lib/commit-history.js';
import { ROOT, SETS_DIR } from '../../eval/lib/corpora.js';
import { BM25_B, BM25_K1, FileBm25 } from '../../eval/lib/file-bm25.js';
import { nonSourceRole } from '../../eval/lib/source-files.js';
import { historyRepo } from '../helpers/history-repo.js';
import { runNode } from '../helpers/run-node.js';

describe('commit subjects', () => {
  it('drops the pull request number a host appended, and strips a type(scope): or package: prefix', () => {
    expect(cleanSubject('feat: Add `jj_bookmark` module (#7643)')).toBe('feat: Add `jj_bookmark` module');
    expect(cleanSubject('fix things  twice (#1) (#2)')).toBe('fix things twice');
    expect(cleanSubject('refer to #12 in the middle')).toBe('refer to #12 in the middle');
    expect(withoutPrefix('feat(git_status): add variables to track worktree')).toBe('add variables to track worktree');
    expect(withoutPrefix('fix!: drop the old flag')).toBe('drop the old flag');
    expect(withoutPrefix('caddyhttp: fix escaped path matcher')).toBe('fix escaped path matcher');
    expect(withoutPrefix('tpl/strings: add a trim function')).toBe('add a trim function');
    expect(withoutPrefix('Resolve relative direct URLs for local sources')).toBe(
      'Resolve relative direct URLs for local sources',
    );
    // Only a single token before the colon is a prefix.
    expect(withoutPrefix('Note the cases: one and two')).toBe('Note the cases: one and two');
    // A branch tag or a tracker's ticket in front goes with the prefix after it.
    expect(withoutPrefix('[13.x] Add `stop()` to `FakeInvokedProcess`')).toBe('Add `stop()` to `FakeInvokedProcess`');
    expect(withoutPrefix('KTOR-9819 Curl: Requests leak curl_slist')).toBe('Requests leak curl_slist');
    expect(withoutPrefix('Fix KTOR-9731 in the CIO engine')).toBe('Fix KTOR-9731 in the CIO engine');
  });

  it.each([
    ['Revert "feat(parser): add nested tables"', 'revert'],
    ['fix: revert the cache change for now', 'revert'],
    ['Merge branch main into feature', 'merge'],
    ['fixup! handle empty input in the lexer', 'fixup'],
    ['chore(release): 1.4.0', 'release'],
    ['Bump version to 1.2.0', 'release'],
    ['Release v2.3.1 with the new parser', 'release'],
    ['v1.2.3 is out', 'release'],
    ['build(deps): update rust crate toml to 1.1.4', 'dependency'],
    ['chore(deps): lock file maintenance', 'dependency'],
    ['Bump requests from 2.31.0 to 2.32.0', 'dependency'],
    ['update go.mod for the new quic module', 'dependency'],
    ['chore: fix hindi truncation tests and bump deps', 'dependency'],
    ['Fix typo in the error message', 'typo'],
    ['docs: fix spelling of occurrence', 'typo'],
    ['ci: stop pinning the installer tool versions', 'non-change type'],
    ['style: run the formatter over everything', 'non-change type'],
    ['fix(lexer): handle tabs', 'under 4 words'],
    ['Handle tabs', 'under 4 words'],
  ])('%s: left out (%s)', (subject, reason) => {
    expect(subjectProblem(subject)).toBe(reason);
  });

  it('keeps subjects that describe a change, and leaves bots out by name or address, not by a word in the name', () => {
    for (const subject of [
      'fix(openstack): resolve clouds.yaml from context current directory',
      'perf: cache supported wheel tags set',
      'Set the QUIC InitialPacketSize to 1200 bytes',
      'docs: clarify what `--no-cache` disables',
    ])
      expect(subjectProblem(subject), subject).toBeUndefined();
    const subject = 'fix(lexer): handle tabs in indented strings';
    expect(subjectProblem(subject, 'renovate[bot]', '29139614+renovate[bot]@users.noreply.github.com')).toBe('bot');
    expect(subjectProblem(subject, 'dependabot', 'support@github.com')).toBe('bot');
    expect(subjectProblem(subject, 'Lucas Botelho', 'lucas@example.com')).toBeUndefined();
  });
});

describe('source files', () => {
  it.each([
    ['src/modules/git_status.rs', undefined],
    ['modules/caddyhttp/server.go', undefined],
    ['src/poetry/console/commands/add.py', undefined],
    ['install/install.sh', undefined],
    ['src/lib/index.ts', undefined],
    ['modules/caddyhttp/server_test.go', 'test'],
    ['replacer_fuzz.go', 'test'],
    ['tests/console/test_add.py', 'test'],
    ['src/pkg/test_utils.py', 'test'],
    ['src/pkg/utils_test.py', 'test'],
    ['src/conftest.py', 'test'],
    ['src/parser.test.ts', 'test'],
    ['lib/router.spec.js', 'test'],
    ['spec/models/user_spec.rb', 'test'],
    ['src/main/java/com/x/ParserTest.java', 'test'],
    ['src/formatter/tests.rs', 'test'],
    ['src/test/mod.rs', 'test'],
    ['caddytest/integration/acme_test.go', 'test'],
    ['caddytest/caddytest.go', 'test'],
    ['crates/core/integration_tests/run.rs', 'test'],
    ['pkg/__tests__/a.js', 'test'],
    ['internal/testdata/gen.go', 'test'],
    ['docs/conf.py', 'docs'],
    ['README.md', 'not-code'],
    ['Cargo.toml', 'not-code'],
    ['examples/basic/main.go', 'example'],
    ['benches/parse.rs', 'bench'],
    ['pkg/encode_bench.go', 'bench'],
    ['api/v1/service.pb.go', 'generated'],
    ['proto/service_pb2.py', 'generated'],
    ['vendor/github.com/x/y.go', 'vendor'],
    ['src/poetry/_vendor/lib.py', 'vendor'],
    ['.github/scripts/release.py', 'tooling'],
    ['latest/handler.go', undefined],
    // .NET test projects, Kotlin Multiplatform test source sets, C and C++ unit tests, PHP tests.
    ['Src/Newtonsoft.Json.Tests/Serialization/Helpers.cs', 'test'],
    ['ktor-http/jvmTest/src/io/ktor/UrlTest.kt', 'test'],
    ['kotlinx-coroutines-core/jsTest/src/Promise.kt', 'test'],
    ['absl/strings/str_cat_test.cc', 'test'],
    ['absl/base/internal/sysinfo_unittest.cc', 'test'],
    ['src/Illuminate/Support/CarbonTest.php', 'test'],
    ['ktor-http/jvm/src/io/ktor/http/Url.kt', undefined],
    ['absl/strings/str_cat.cc', undefined],
    ['Src/Newtonsoft.Json/JsonReader.cs', undefined],
  ])('%s: %s', (path, role) => {
    expect(nonSourceRole(path)).toBe(role);
  });
});

describe('building a commit set from a history', () => {
  const repo = historyRepo();
  let pin = '';
  let first = '';
  beforeAll(() => {
    first = repo.commit('initial import of the parser', {
      'src/parser.py': 'def parse(text):\n    return text\n',
      'src/lexer.py': 'def lex(text):\n    return text.split()\n',
      'README.md': '# parser\n',
    });
    repo.commit('add the old module for compatibility', { 'src/old.py': 'OLD = 1\n' });
    repo.commit('feat(parser): add support for nested tables (#12)', {
      'src/parser.py': 'def parse(text):\n    return [text]\n',
      'tests/test_parser.py': 'def test_parse():\n    pass\n',
      'docs/tables.md': 'Nested tables.\n',
    });
    repo.commit('Bump version to 1.2.0', {
      'src/parser.py': 'VERSION = "1.2.0"\ndef parse(text):\n    return [text]\n',
    });
    repo.commit(
      'build(deps): bump requests from 2.0 to 2.1',
      { 'src/lexer.py': '# requests 2.1\ndef lex(text):\n    return text.split()\n' },
      { author: 'dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>' },
    );
    repo.commit('fix typo in the lexer error', {
      'src/lexer.py': '# lexer\ndef lex(text):\n    return text.split()\n',
    });
    repo.commit('fix lexer', { 'src/lexer.py': '# lexer 2\ndef lex(text):\n    return text.split()\n' });
    repo.commit('refactor: move every module to the new layout', {
      'src/a.py': 'A = 1\n',
      'src/b.py': 'B = 1\n',
      'src/c.py': 'C = 1\n',
      'src/d.py': 'D = 1\n',
    });
    repo.commit('test: cover the lexer with more cases', {
      'tests/test_lexer.py': 'def test_lex():\n    pass\n',
      'pkg/thing_test.go': 'package pkg\n',
      'web/app.test.ts': 'test("x", () => {});\n',
    });
    repo.commit('fix(old): keep the old constant stable', { 'src/old.py': 'OLD = 2\n' });
    // A branch, merged with a merge commit: its own commit counts, the merge does not.
    repo.git(['checkout', '-q', '-b', 'feature']);
    repo.commit('lexer: recognise unicode escapes in strings', {
      'src/lexer.py': '# unicode\ndef lex(text):\n    return text.split()\n',
      'pkg/lex_test.go': 'package pkg\n',
    });
    repo.git(['checkout', '-q', 'main']);
    repo.commit('fix(parser): accept empty documents without raising', {
      'src/parser.py': 'def parse(text):\n    return [text] if text else []\n',
      'src/errors.py': 'class EmptyDocument(Exception):\n    pass\n',
      'src/parser_test.py': 'def test():\n    pass\n',
    });
    repo.git(['merge', '-q', '--no-ff', '-m', 'Merge branch feature into main with the unicode work', 'feature']);
    repo.commit('Revert "fix(parser): accept empty documents without raising"', {
      'src/parser.py': 'def parse(text):\n    return [text]\n',
    });
    repo.commit('remove the old module that nobody imports', { 'src/old.py': null });
    pin = repo.git(['rev-parse', 'HEAD']).trim();
    // After the snapshot: never read.
    repo.commit('feat(parser): stream large documents in chunks', {
      'src/parser.py': 'def parse(text):\n    yield text\n',
    });
  });
  afterAll(() => repo.cleanup());

  it('keeps the newest describing commits with 1 to 3 source files, tests and docs out of the answers', () => {
    const built = buildCommitSet(repo.gitDir, pin, 'tiny', 100);
    expect(built.queries.map((query) => [query.query, query.bare, query.expected_paths])).toEqual([
      [
        'fix(parser): accept empty documents without raising',
        'accept empty documents without raising',
        ['src/errors.py', 'src/parser.py'],
      ],
      ['lexer: recognise unicode escapes in strings', 'recognise unicode escapes in strings', ['src/lexer.py']],
      ['feat(parser): add support for nested tables', 'add support for nested tables', ['src/parser.py']],
      ['initial import of the parser', 'initial import of the parser', ['src/lexer.py', 'src/parser.py']],
    ]);
    expect(built.queries[0]).toMatchObject({ id: 'tiny-001', commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(built.queries.at(-1)!.commit).toBe(first);
    expect(built.leftOut).toEqual({
      'a file gone from the snapshot': 3, // src/old.py: added, changed, then deleted
      revert: 1,
      'no source file': 1, // tests only
      'over 3 source files': 1,
      'under 4 words': 1,
      typo: 1,
      bot: 1,
      release: 1,
    });
    expect(built.considered).toBe(14);
  });

  it('stops at the size asked, newest first', () => {
    const built = buildCommitSet(repo.gitDir, pin, 'tiny', 2);
    expect(built.queries.map((query) => query.id)).toEqual(['tiny-001', 'tiny-002']);
    expect(built.queries[1]!.query).toBe('lexer: recognise unicode escapes in strings');
    expect(built.considered).toBe(4);
  });

  it('gives the same set from the same history, in a bare clone too', () => {
    const bare = mkdtempSync(join(tmpdir(), 'ocvector-commits-bare-'));
    try {
      execFileSync('git', ['clone', '-q', '--bare', repo.root, join(bare, 'tiny')]);
      const gitDir = gitDirOf(bare, 'tiny')!;
      expect(gitDir).toBe(join(bare, 'tiny'));
      expect(gitDirOf(dirname(repo.root), repo.root.split('/').pop()!)).toBe(repo.gitDir);
      expect(gitDirOf(bare, 'absent')).toBeUndefined();
      expect(resolveCommit(gitDir, pin.slice(0, 10))).toBe(pin);
      expect(buildCommitSet(gitDir, pin, 'tiny', 100)).toEqual(buildCommitSet(repo.gitDir, pin, 'tiny', 100));
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });

  it('lays out the snapshot without the blobs a mirror lacks, instead of failing', () => {
    const copy = mkdtempSync(join(tmpdir(), 'ocvector-commits-partial-'));
    const out = mkdtempSync(join(tmpdir(), 'ocvector-commits-tree-'));
    try {
      // A clone whose copy of one blob is gone, as a mirror that leaves out its largest files.
      execFileSync('git', ['clone', '-q', '--bare', '--no-local', repo.root, join(copy, 'partial')]);
      const gitDir = join(copy, 'partial');
      execFileSync('git', ['--git-dir', gitDir, 'repack', '-q', '-a', '-d']);
      const blob = execFileSync('git', ['--git-dir', gitDir, 'rev-parse', `${pin}:src/parser.py`], {
        encoding: 'utf8',
      }).trim();
      const kept = execFileSync('git', ['--git-dir', gitDir, 'rev-list', '--objects', '--all'], { encoding: 'utf8' })
        .split('\n')
        .map((line) => line.split(' ')[0]!)
        .filter((id) => id !== '' && id !== blob);
      const pack = execFileSync('git', ['--git-dir', gitDir, 'pack-objects', '-q', join(gitDir, 'objects/pack/pack')], {
        input: `${kept.join('\n')}\n`,
        encoding: 'utf8',
      }).trim();
      for (const name of readdirSync(join(gitDir, 'objects/pack')))
        if (!name.includes(pack)) rmSync(join(gitDir, 'objects/pack', name));
      expect(() => execFileSync('git', ['--git-dir', gitDir, 'cat-file', '-e', blob], { stdio: 'ignore' })).toThrow();
      layOutSnapshot(gitDir, pin, out);
      expect(existsSync(join(out, 'src/parser.py'))).toBe(false);
      expect(existsSync(join(out, 'src/lexer.py'))).toBe(true);
      expect(existsSync(join(out, 'tests/test_parser.py'))).toBe(true);
    } finally {
      rmSync(copy, { recursive: true, force: true });
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('lays out the snapshot, not the newest commit', () => {
    const out = mkdtempSync(join(tmpdir(), 'ocvector-commits-tree-'));
    try {
      layOutSnapshot(repo.gitDir, pin, out);
      expect(readFileSync(join(out, 'src/parser.py'), 'utf8')).toBe('def parse(text):\n    return [text]\n');
      expect(existsSync(join(out, 'src/old.py'))).toBe(false);
      expect(existsSync(join(out, 'tests/test_parser.py'))).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe('the whole-file BM25 baseline', () => {
  const documents = [
    { path: 'b.ts', text: 'parse parse parse' },
    { path: 'a.ts', text: 'parse config file' },
    { path: 'c.ts', text: 'render template' },
  ];
  const bm25 = new FileBm25(documents);

  it('ranks by Okapi BM25 (k1 1.2, b 0.75) over whole files, hand-checked', () => {
    expect([BM25_K1, BM25_B]).toEqual([1.2, 0.75]);
    // N = 3, average length 8/3; parse in 2 files, config in 1.
    const idfParse = Math.log(1 + 1.5 / 2.5);
    const idfConfig = Math.log(1 + 2.5 / 1.5);
    const norm = 1 - 0.75 + (0.75 * 3) / (8 / 3); // a.ts and b.ts are both 3 terms long
    const a = (idfParse + idfConfig) * (2.2 / (1 + 1.2 * norm));
    const b = idfParse * ((3 * 2.2) / (3 + 1.2 * norm));
    expect(a).toBeCloseTo(1.3803, 4);
    expect(b).toBeCloseTo(0.7193, 4);
    const hits = bm25.rank('parse config');
    expect(hits.map((hit) => hit.path)).toEqual(['a.ts', 'b.ts']); // c.ts holds neither term
    expect(hits[0]!.score).toBeCloseTo(a, 10);
    expect(hits[1]!.score).toBeCloseTo(b, 10);
  });

  it("reads code as the project's terms do: identifiers split, words stemmed, each query term once", () => {
    expect(bm25.rank('parseConfig').map((hit) => hit.path)).toEqual(['a.ts', 'b.ts']);
    expect(bm25.rank('parses configs parse').map((hit) => hit.score)).toEqual(
      bm25.rank('parse config').map((hit) => hit.score),
    );
    expect(bm25.rank('nothing here')).toEqual([]);
  });

  it('breaks ties by path, and never gives a term that every file holds a negative weight', () => {
    const same = new FileBm25([
      { path: 'z.go', text: 'route handler' },
      { path: 'm.go', text: 'route handler' },
    ]);
    expect(same.rank('route').map((hit) => hit.path)).toEqual(['m.go', 'z.go']);
    expect(same.idf('route')).toBeGreaterThan(0);
  });
});

describe('file ranks', () => {
  it('counts distinct files in the order results first name them, within the first 10', () => {
    const files = distinctFiles(['a.go', 'a.go', 'b.go', 'a.go', 'c.go']);
    expect(files).toEqual(['a.go', 'b.go', 'c.go']);
    expect(fileRank(files, ['c.go', 'b.go'])).toBe(2);
    expect(fileRank(files, ['d.go'])).toBe(0);
    const many = Array.from({ length: 12 }, (_, i) => `f${i}.go`);
    expect(fileRank(many, ['f9.go'])).toBe(10);
    expect(fileRank(many, ['f10.go'])).toBe(0);
  });
});

describe('the committed commit sets', () => {
  it('are split into a development half and a held-out half, each of several languages', () => {
    const languages = (half: string) =>
      new Set(COMMIT_CORPORA.filter((corpus) => corpus.half === half).map((corpus) => corpus.language));
    expect(COMMIT_CORPORA.length).toBeGreaterThanOrEqual(13);
    expect(new Set(COMMIT_CORPORA.map((corpus) => corpus.language)).size).toBeGreaterThanOrEqual(8);
    expect(languages('development').size).toBeGreaterThanOrEqual(4);
    expect(languages('held-out').size).toBeGreaterThanOrEqual(4);
    expect(COMMIT_CORPORA.every((corpus) => corpus.half === 'development' || corpus.half === 'held-out')).toBe(true);
  });

  it.each(COMMIT_CORPORA.map((corpus) => corpus.set))(
    '%s: its source.json names the pinned snapshot, and every answer is 1 to 3 source files',
    (set) => {
      const source = commitSetSource(set)!;
      const corpus = COMMIT_CORPORA.find((c) => c.set === set)!;
      expect(source).toMatchObject({
        kind: 'commits',
        corpus: corpus.name,
        repository: corpus.url,
        commit: corpus.pin,
      });
      const queries = loadEvalSet(join(SETS_DIR, set, COMMIT_SET_FILES.asWritten));
      expect(queries).toHaveLength(source.queries);
      expect(queries.length).toBeGreaterThanOrEqual(60);
      for (const query of queries) {
        expect(query.expected_paths.length).toBeGreaterThanOrEqual(1);
        expect(query.expected_paths.length).toBeLessThanOrEqual(3);
        for (const path of query.expected_paths) expect(nonSourceRole(path), path).toBeUndefined();
      }
      const bare = loadEvalSet(join(SETS_DIR, set, COMMIT_SET_FILES.noPrefix));
      expect(bare.map((query) => [query.id, query.expected_paths])).toEqual(
        queries.map((query) => [query.id, query.expected_paths]),
      );
      expect(bare.filter((query, i) => query.query !== queries[i]!.query)).toHaveLength(source.prefixed);
    },
  );

  it('npm run eval says in one line that a set has no git directory here, and goes on', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'ocvector-no-corpora-'));
    try {
      const run = await runNode(
        [
          join(ROOT, 'node_modules/vite-node/vite-node.mjs'),
          'eval/run.ts',
          '--',
          '--set',
          'commits-caddy',
          '--commits-corpora',
          empty,
        ],
        { cwd: ROOT },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          /^eval: commits-caddy: left out, no git directory .*caddy \(git clone --bare https:\/\/github\.com\/caddyserver\/caddy there/,
        ),
      ]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
