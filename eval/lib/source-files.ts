/**
 * Which files of a repository are its source, for the change-location
 * (commit) sets: files in a language ocvector parses as code, less tests,
 * documentation, examples, benchmarks, generated and vendored code and
 * repository tooling, by the path conventions of each language.
 *
 * These are the evaluation's own rules, on purpose apart from the
 * ranking's (src/search/ranking/path-priors.ts): a change to the ranking must not
 * move what the sets count as an answer, or as a file to score.
 */
import { detectLanguage, isCodeLanguage } from '../../src/internal.js';

/** Why a file is not source: its role, or not code at all. */
export type NonSourceRole = 'not-code' | 'test' | 'docs' | 'example' | 'bench' | 'generated' | 'vendor' | 'tooling';

/**
 * Test code: directories (test/, tests/, __tests__/, spec/, testdata/,
 * fixtures/, e2e/, a package of tests such as caddytest/ or
 * integration_tests/, a .NET test project such as Newtonsoft.Json.Tests/,
 * a Kotlin Multiplatform source set such as jvmTest/) and files: Go
 * `_test.go` and `_fuzz.go`, Python `test_*.py`, `*_test.py` and
 * `conftest.py`, JavaScript and TypeScript `*.test.*` and `*.spec.*`, Ruby
 * `*_spec.rb`, Java, Kotlin, C#, Swift and PHP `*Test.java`/`*Tests.kt`,
 * Scala `*Spec.scala`, Rust `tests.rs`, C and C++ `*_test.cc` and
 * `*_unittest.cc`.
 */
const TEST_DIR =
  /(?:^|\/)(?:tests?|testing|testdata|test_?utils?|__tests__|__mocks__|specs?|fixtures?|e2e|[a-z0-9]{4,}tests?|[a-z0-9][a-z0-9.]*[._-]tests?)\//i;
/** Kotlin Multiplatform test source sets (`jvmTest/`, `jsTest/`, `commonTest/`): camelCase, so apart from the case-blind pattern. */
const TEST_SOURCE_SET = /(?:^|\/)[a-z][a-zA-Z0-9]*Tests?\//;
const TEST_FILE =
  /(?:^|\/)(?:test_[^/]+\.py|[^/]+_test\.(?:py|go)|[^/]+_fuzz\.go|conftest\.py|[^/]+\.(?:test|spec)\.[a-z]+|[^/]+_spec\.rb|[^/]+(?:Tests?|Spec|Suite)\.(?:java|kt|scala|cs|swift|php)|tests?\.rs|[^/]+_(?:unit)?tests?\.(?:c|cc|cpp|cxx|h|hh|hpp))$/;
const DOCS = /(?:^|\/)(?:docs?|documentation|man)\//i;
const EXAMPLES = /(?:^|\/)(?:_?examples?|samples?|demos?)\//i;
const BENCH = /(?:^|\/)(?:bench|benches|benchmarks?)\/|(?:^|\/)[^/]+_bench(?:mark)?s?\.[a-z]+$/i;
const GENERATED =
  /(?:^|\/)(?:generated|__generated__)\/|\.pb\.go$|_pb2\.py$|(?:^|\/)zz_generated[^/]*$|[._]generated\.[a-z]+$/i;
const VENDOR = /(?:^|\/)(?:vendor|vendored|_vendor|third_party|thirdparty)\//i;
/** Dot-directories (`.github/`, `.cargo/`): continuous integration and editor tooling, not the product. */
const TOOLING = /(?:^|\/)\.[^/]+\//;

const ROLES: readonly [NonSourceRole, RegExp][] = [
  ['test', TEST_DIR],
  ['test', TEST_SOURCE_SET],
  ['test', TEST_FILE],
  ['docs', DOCS],
  ['example', EXAMPLES],
  ['bench', BENCH],
  ['generated', GENERATED],
  ['vendor', VENDOR],
  ['tooling', TOOLING],
];

/** Why a root-relative path is not source, or undefined when it is. */
export function nonSourceRole(path: string): NonSourceRole | undefined {
  if (!isCodeLanguage(detectLanguage(path))) return 'not-code';
  return ROLES.find(([, pattern]) => pattern.test(path))?.[0];
}

export function isSourcePath(path: string): boolean {
  return nonSourceRole(path) === undefined;
}
