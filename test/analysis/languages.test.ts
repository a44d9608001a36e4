import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  Analyzer,
  analyzeText,
  detectLanguage,
  isSkipped,
  type AnalysisEvent,
  type CodeElement,
  type CodeFile,
  type Language,
} from '../../src/internal.js';
import { OllamaEnricher } from '../../src/analysis/llm/ollama-enricher.js';
import { FakeOllama } from '../helpers/fake-ollama.js';
import { overrideGrammarPackage } from '../../src/analysis/ast/parsers.js';
import { CODE_ELEMENT_TYPES } from '../../src/analysis/element.js';
import { typescriptExtractor } from '../../src/analysis/ast/typescript.js';
import {
  analysisOf,
  canonicalLanguage,
  isCodeLanguage,
  LANGUAGE_NAMES,
  LANGUAGES,
  shebangInterpreter,
} from '../../src/analysis/languages.js';
import { RESULT_SCHEMA } from '../../src/analysis/llm/resources.js';
import { ELEMENT_TYPES } from '../../src/search/filters.js';

/** A fixture's text, without the byte-order mark that screenContent drops before analysis. */
const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/analysis/languages/${name}`, import.meta.url), 'utf8').replace(/^\uFEFF/, '');

function qualified(element: CodeElement): string {
  return element.parent ? `${element.parent}.${element.name}` : element.name;
}

/** The element of this qualified name (and type: a Scala trait and its companion object share a name). */
function find(file: CodeFile, name: string, type?: CodeElement['type']): CodeElement {
  const element = file.elements.find((e) => qualified(e) === name && (!type || e.type === type));
  if (!element) throw new Error(`no element ${name} in ${file.path}: ${file.elements.map(qualified).join(', ')}`);
  return element;
}

/** 1-based line of the first line matching `pattern`: an oracle independent of tree-sitter. */
function lineOf(text: string, pattern: RegExp): number {
  const index = text.split('\n').findIndex((line) => pattern.test(line));
  if (index < 0) throw new Error(`no line matches ${pattern}`);
  return index + 1;
}

/** [type, qualified name, the line it starts on (the first line matching a pattern, or a number), the line it ends on] */
type Expected = [CodeElement['type'], string, RegExp | number, number];

interface Case {
  file: string;
  language: Language;
  elements: Expected[];
  /** Some C++ macros still defeat tree-sitter: errors are reported, elements kept. */
  syntaxErrors?: boolean;
}

const CASES: Case[] = [
  {
    file: 'auth.go',
    language: 'go',
    elements: [
      ['constant', 'AuthUserKey', /^const AuthUserKey/, 17],
      ['struct', 'authPair', /^type authPair struct/, 28],
      ['field', 'authPair.user', /^\tuser +string/, 27],
      ['method', 'authPairs.searchCredential', /^func \(a authPairs\) searchCredential/, 42],
      ['function', 'BasicAuthForRealm', /^func BasicAuthForRealm/, 68],
      ['function', 'BasicAuthForProxy', /^func BasicAuthForProxy/, 116],
    ],
  },
  {
    file: 'either.rs',
    language: 'rust',
    elements: [
      ['enum', 'Either', /^pub enum Either/, 67],
      ['macro', 'delegate_call', /^macro_rules! delegate_call/, 81],
      ['impl', 'impl Future for Either', /^impl<L, R, O> Future for Either/, 93],
      ['method', 'Either.poll_read', /^ {4}fn poll_read\(/, 106],
      ['module', 'tests', /^mod tests/, 236],
      ['function', 'tests.either_is_stream', /async fn either_is_stream/, 226],
    ],
  },
  {
    file: 'JsonObject.java',
    language: 'java',
    elements: [
      ['class', 'JsonObject', /^public final class JsonObject/, 259],
      ['field', 'JsonObject.members', /private final LinkedTreeMap/, 41],
      ['constructor', 'JsonObject.JsonObject', /@SuppressWarnings\("deprecation"\)/, 45],
      ['method', 'JsonObject.add', /public void add\(String property, JsonElement value\)/, 71],
      ['method', 'JsonObject.hashCode', 255 /* its @Override line, above `public int hashCode()` */, 258],
    ],
  },
  {
    file: 'tool_filetime.c',
    language: 'c',
    elements: [
      ['function', 'getfiletime', /^int getfiletime\(/, 83],
      ['function', 'setfiletime', /^void setfiletime\(/, 150],
    ],
  },
  {
    file: 'blocking_counter.h',
    language: 'cpp',
    syntaxErrors: true,
    elements: [
      ['namespace', 'absl', /^namespace absl \{/, 105],
      ['class', 'absl.BlockingCounter', /^class BlockingCounter \{/, 102],
      ['constructor', 'absl.BlockingCounter.BlockingCounter', /explicit BlockingCounter\(int initial_count\)/, 66],
      ['method', 'absl.BlockingCounter.Wait', /^ {2}void Wait\(\);/, 90],
      ['field', 'absl.BlockingCounter.lock_', /^ {2}Mutex lock_;/, 98],
    ],
  },
  {
    file: 'JsonLoadSettings.cs',
    language: 'csharp',
    elements: [
      ['namespace', 'Newtonsoft.Json.Linq', /^namespace Newtonsoft\.Json\.Linq/, 106],
      ['class', 'Newtonsoft.Json.Linq.JsonLoadSettings', /public class JsonLoadSettings/, 105],
      [
        'field',
        'Newtonsoft.Json.Linq.JsonLoadSettings._commentHandling',
        /private CommentHandling _commentHandling/,
        35,
      ],
      ['constructor', 'Newtonsoft.Json.Linq.JsonLoadSettings.JsonLoadSettings', /public JsonLoadSettings\(\)/, 47],
      [
        'property',
        'Newtonsoft.Json.Linq.JsonLoadSettings.CommentHandling',
        /public CommentHandling CommentHandling/,
        66,
      ],
    ],
  },
  {
    file: 'events.rb',
    language: 'ruby',
    elements: [
      ['module', 'Rack', /^module Rack/, 172],
      ['class', 'Rack.Events', /^ {2}class Events/, 171],
      ['module', 'Rack.Events.Abstract', /^ {4}module Abstract/, 78],
      ['class', 'Rack.Events.EventedBodyProxy', /class EventedBodyProxy < Rack::BodyProxy/, 108],
      ['property', 'Rack.Events.EventedBodyProxy.response', /attr_reader :request, :response/, 81],
      ['constructor', 'Rack.Events.initialize', /^ {4}def initialize\(app, handlers\)/, 124],
      ['method', 'Rack.Events.call', /^ {4}def call\(env\)/, 144],
    ],
  },
  {
    file: 'Optional.php',
    language: 'php',
    elements: [
      ['class', 'Optional', /^class Optional/, 130],
      ['property', 'Optional.value', /protected \$value;/, 20],
      ['constructor', 'Optional.__construct', /public function __construct/, 30],
      ['method', 'Optional.offsetGet', /public function offsetGet/, 84],
    ],
  },
  {
    file: 'Deflater.kt',
    language: 'kotlin',
    elements: [
      ['property', 'GZIP_MAGIC', /^internal const val GZIP_MAGIC/, 21],
      ['method', 'Deflater.deflateTo', /^private fun Deflater\.deflateTo/, 29],
      ['method', 'ByteReadChannel.deflateTo', /^private suspend fun ByteReadChannel\.deflateTo/, 103],
      [
        'method',
        'ByteWriteChannel.deflated',
        129 /* its @OptIn line, above `public fun ByteWriteChannel.deflated(` */,
        136,
      ],
    ],
  },
  {
    file: 'CORSMiddleware.swift',
    language: 'swift',
    elements: [
      ['class', 'CORSMiddleware', /^public final class CORSMiddleware/, 168],
      ['enum', 'CORSMiddleware.AllowOriginSetting', /public enum AllowOriginSetting/, 51],
      ['struct', 'CORSMiddleware.Configuration', /public struct Configuration/, 112],
      ['constructor', 'CORSMiddleware.init', /public init\(configuration: Configuration/, 124],
      ['method', 'CORSMiddleware.respond', /public func respond\(to request/, 167],
      ['impl', 'extension Request', /^private extension Request/, 177],
      ['property', 'Request.isPreflight', /var isPreflight: Bool/, 176],
    ],
  },
  {
    file: 'ApplicativeErrorLaws.scala',
    language: 'scala',
    elements: [
      ['trait', 'ApplicativeErrorLaws', /^trait ApplicativeErrorLaws/, 96],
      ['method', 'ApplicativeErrorLaws.applicativeErrorHandleWith', /def applicativeErrorHandleWith/, 32],
      ['class', 'ApplicativeErrorLaws', /^object ApplicativeErrorLaws/, 101],
      ['method', 'ApplicativeErrorLaws.apply', /def apply\[F\[_\], E\]/, 100],
    ],
  },
  {
    file: 'semaphore.bash',
    language: 'bash',
    elements: [
      ['function', 'bats_run_under_flock', /^bats_run_under_flock\(\)/, 5],
      ['function', 'bats_semaphore_run', /^bats_semaphore_run\(\)/, 49],
      ['function', 'bats_semaphore_get_free_slot_count', /^bats_semaphore_get_free_slot_count\(\)/, 113],
    ],
  },
  {
    file: 'utils.lua',
    language: 'lua',
    elements: [
      ['function', 'utils.map_entries', /^function utils\.map_entries/, 44],
      ['function', 'utils._get_anon_function_name', /^function utils\._get_anon_function_name/, 142],
    ],
  },
  {
    file: 'queryable.ex',
    language: 'elixir',
    elements: [
      ['interface', 'Ecto.Queryable', /^defprotocol Ecto\.Queryable/, 107],
      ['method', 'Ecto.Queryable.to_query', /^ {2}def to_query\(data\)/, 106],
      ['impl', 'impl Ecto.Queryable for Ecto.Query', /^defimpl Ecto\.Queryable, for: Ecto\.Query do/, 111],
      ['method', 'Atom.to_query', /^ {2}def to_query\(module\)/, 143],
    ],
  },
  {
    file: 'Key.hs',
    language: 'haskell',
    elements: [
      ['struct', 'Key', /^newtype Key = Key/, 45],
      ['function', 'toText', /^toText ::/, 57],
      ['impl', 'instance Show Key', /^instance Show Key/, 85],
      ['method', 'Key.showsPrec', /^ {4}showsPrec d/, 85],
    ],
  },
  {
    file: 'diff.zig',
    language: 'zig',
    elements: [
      ['function', 'edits', /^pub fn edits\(/, 66],
      ['function', 'textEditLessThan', /^fn textEditLessThan/, 112],
      ['function', 'applyTextEdits', /^pub fn applyTextEdits\(/, 147],
    ],
  },
];

describe('every language yields elements from a real file', () => {
  for (const { file: name, language, elements, syntaxErrors } of CASES) {
    it(`${language}: ${name}`, () => {
      const text = fixture(name);
      const file = analyzeText(`src/${name}`, text);
      expect(file.language).toBe(language);
      expect(file.source).toBe('ast');
      if (syntaxErrors) expect(file.warnings).toEqual([expect.stringMatching(/^syntax errors/)]);
      else expect(file.warnings).toEqual([]);
      const lineCount = text.split('\n').length;
      for (const element of file.elements) {
        expect(element.startLine).toBeGreaterThanOrEqual(1);
        expect(element.endLine).toBeGreaterThanOrEqual(element.startLine);
        expect(element.endLine).toBeLessThanOrEqual(lineCount);
        expect(CODE_ELEMENT_TYPES).toContain(element.type);
      }
      for (const [type, qualifiedName, start, endLine] of elements) {
        const startLine = typeof start === 'number' ? start : lineOf(text, start);
        expect(find(file, qualifiedName, type), qualifiedName).toMatchObject({ type, startLine, endLine });
      }
    });
  }

  it('reads signatures, doc comments, parameters, return types and relations', () => {
    const go = analyzeText('auth.go', fixture('auth.go'));
    expect(find(go, 'BasicAuthForRealm')).toMatchObject({
      access: 'public',
      signature: 'func BasicAuthForRealm(accounts Accounts, realm string) HandlerFunc',
      description: expect.stringMatching(/^BasicAuthForRealm returns a Basic HTTP Authorization middleware/),
      parameters: [
        { name: 'accounts', type: 'Accounts' },
        { name: 'realm', type: 'string' },
      ],
      returnType: 'HandlerFunc',
    });
    expect(find(go, 'processAccounts')).toMatchObject({ access: 'internal' });
    expect(find(go, 'authorizationHeader').dependencies).toContainEqual({
      type: 'calls',
      target: 'base64.StdEncoding.EncodeToString',
    });

    const rust = analyzeText('either.rs', fixture('either.rs'));
    expect(rust.summary).toBe('Module defining an Either type.');
    expect(find(rust, 'impl Future for Either').dependencies).toContainEqual({ type: 'implements', target: 'Future' });
    expect(find(rust, 'Either.poll_read')).toMatchObject({ access: 'public', returnType: 'Poll<Result<()>>' });
    expect(find(rust, 'delegate_call').description).toMatch(/^A small helper macro/);

    const java = analyzeText('JsonObject.java', fixture('JsonObject.java'));
    expect(find(java, 'JsonObject')).toMatchObject({
      description: expect.stringMatching(/^A class representing an object type in JSON/),
    });
    expect(find(java, 'JsonObject').dependencies).toContainEqual({ type: 'inherits', target: 'JsonElement' });
    expect(find(java, 'JsonObject.add')).toMatchObject({
      parameters: [
        { name: 'property', type: 'String' },
        { name: 'value', type: 'JsonElement' },
      ],
      returnType: 'void',
      dependencies: [{ type: 'calls', target: 'members.put' }],
    });
    expect(find(java, 'JsonObject.members').access).toBe('private');

    const csharp = analyzeText('JsonLoadSettings.cs', fixture('JsonLoadSettings.cs'));
    expect(find(csharp, 'Newtonsoft.Json.Linq.JsonLoadSettings').description).toBe(
      'Specifies the settings used when loading JSON.',
    );

    const elixir = analyzeText('queryable.ex', fixture('queryable.ex'));
    expect(find(elixir, 'Ecto.Queryable').description).toMatch(/^Converts a data structure into an `Ecto\.Query`/);
    expect(find(elixir, 'Ecto.Queryable.to_query').description).toBe('Converts the given `data` into an `Ecto.Query`.');
    // Phoenix.Router's shape: the moduledoc comes after the nested modules it defines first.
    const router = analyzeText('router.ex', fixture('router.ex'));
    expect(find(router, 'Phoenix.Router').description).toBe('Defines a Phoenix router.');
    expect(find(router, 'Phoenix.Router.NoRouteError').description).toBe('Raised when no route is found.');
    expect(find(router, 'Phoenix.Router.scope').description).toBe('');

    // Definitions and aliases count where statements stand (the top level, a do block), not inside an anonymous function.
    const generated = analyzeText(
      'gen.ex',
      'defmodule Gen do\n  alias Shown.Thing\n  Enum.each([:c], fn n ->\n    def helper(n), do: n\n    alias Hidden.Thing\n  end)\n  def real(x), do: x\nend\n',
    );
    expect(generated.elements.map((e) => `${e.type} ${e.parent ? `${e.parent}.` : ''}${e.name}`)).toEqual([
      'module Gen',
      'function Gen.real',
    ]);
    expect(generated.imports.map((i) => i.module)).toEqual(['Shown.Thing']);

    // Ruby: attributes and mixins are declared in a class or module body, not in `class << self` or a method.
    const widget = analyzeText(
      'widget.rb',
      'class Widget\n  include Comparable\n  attr_reader :size\n  class << self\n    attr_accessor :registry\n  end\n  def setup\n    extend Helpers\n  end\nend\n',
    );
    expect(widget.elements.filter((e) => e.type === 'property').map((e) => e.name)).toEqual(['size']);
    expect(widget.elements.flatMap((e) => e.dependencies.filter((d) => d.type === 'implements'))).toEqual([
      { type: 'implements', target: 'Comparable' },
    ]);

    const haskell = analyzeText('Key.hs', fixture('Key.hs'));
    expect(haskell.summary).toBe('Strong type for JSON keys.');
    // A type signature and its equations are one function.
    expect(find(haskell, 'toText')).toMatchObject({ signature: 'toText :: Key -> Text', returnType: 'Key -> Text' });

    const zig = analyzeText('diff.zig', fixture('diff.zig'));
    expect(zig.summary).toBe('Text diffing between source files.');
    expect(find(zig, 'applyTextEdits')).toMatchObject({
      access: 'public',
      description: 'Caller owns returned memory.',
    });
    expect(find(zig, 'textEditLessThan').access).toBe('private');

    const lua = analyzeText('utils.lua', fixture('utils.lua'));
    expect(find(lua, 'utils.map_entries')).toMatchObject({
      parameters: [
        { name: 'prompt_bufnr', type: '' },
        { name: 'f', type: '' },
      ],
    });
    expect(lua.imports).toContainEqual({ module: 'telescope.actions.state', line: 6 });
  });
});

describe('bad input', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ocvector-languages-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a syntax error keeps the good elements before and after it', () => {
    // A broken declaration (its parameter list unclosed) on a blank line between two declarations.
    for (const [name, blankLine, broken] of [
      ['auth.go', 69, 'func broken(x int { return }'],
      ['either.rs', 136, 'fn broken(<<< x) { }'],
      ['JsonObject.java', 72, '  public void broken(int x { }'],
      ['events.rb', 151, '    def broken(('],
    ] as const) {
      const lines = fixture(name).split('\n');
      expect(lines[blankLine - 1], name).toBe('');
      const text = [...lines.slice(0, blankLine), broken, ...lines.slice(blankLine)].join('\n');
      const good = analyzeText(name, fixture(name));
      const file = analyzeText(name, text);
      expect(file.source, name).toBe('ast');
      expect(file.warnings, name).toEqual([expect.stringMatching(/^syntax errors/)]);
      // Recovery may nest what follows the error differently (its parent can
      // change), and may take the next declaration into the error region;
      // every other element before and after it is still there.
      const before = good.elements.filter((e) => e.endLine < blankLine);
      const after = good.elements.filter((e) => e.startLine > blankLine).slice(1);
      expect(before.length, name).toBeGreaterThan(1);
      expect(after.length, name).toBeGreaterThan(1);
      const found = file.elements.map((e) => `${e.name}@${e.startLine}`);
      expect(found, name).toEqual(
        expect.arrayContaining([
          ...before.map((e) => `${e.name}@${e.startLine}`),
          ...after.map((e) => `${e.name}@${e.startLine + 1}`),
        ]),
      );
    }
  });

  it('a grammar that fails to load turns its files into windows, with a warning, and the run goes on', async () => {
    const restore = overrideGrammarPackage('go', { package: 'tree-sitter-go-that-is-not-installed' });
    try {
      const events: AnalysisEvent[] = [];
      const analyzer = new Analyzer({ onEvent: (event) => events.push(event) });
      const path = join(dir, 'auth.go');
      writeFileSync(path, fixture('auth.go'));
      const file = await analyzer.analyzeFile(path);
      if (isSkipped(file)) throw new Error('skipped');
      expect(file).toMatchObject({ language: 'go', source: 'text' });
      expect(file.elements.length).toBeGreaterThan(0);
      expect(file.elements.every((e) => e.type === 'window')).toBe(true);
      expect(file.warnings).toEqual([
        expect.stringMatching(/the go grammar could not be loaded .*; analysed as text windows/),
      ]);
      expect(events).toContainEqual(
        expect.objectContaining({ type: 'warning', message: expect.stringMatching(/go grammar/) }),
      );
      // Other languages are untouched.
      expect(analyzeText('either.rs', fixture('either.rs')).source).toBe('ast');
    } finally {
      restore();
    }
    expect(analyzeText('auth.go', fixture('auth.go')).source).toBe('ast');
  });

  it('a 5 MB generated file is skipped with its reason, unread', async () => {
    const line = 'func Generated_(x int) int { return x }\n';
    const big = Array.from({ length: Math.ceil((5 << 20) / line.length) }, (_, i) => line.replace('_', `_${i}`)).join(
      '',
    );
    const path = join(dir, 'big.go');
    writeFileSync(path, `package big\n\n${big}`);
    const events: AnalysisEvent[] = [];
    const result = await new Analyzer({ onEvent: (event) => events.push(event) }).analyzeFile(path);
    expect(result).toMatchObject({ skipped: 'too-large', detail: expect.stringMatching(/over the limit of 1048576/) });
    expect(events).toEqual([expect.objectContaining({ type: 'skipped', reason: 'too-large' })]);
    // Small, but marked as generated the way Go tools mark it.
    const marked = join(dir, 'marked.pb.go');
    writeFileSync(marked, `// Code generated by protoc-gen-go. DO NOT EDIT.\n\npackage big\n\n${big.slice(0, 2_000)}`);
    expect(await new Analyzer().analyzeFile(marked)).toMatchObject({
      skipped: 'generated',
      detail: expect.stringMatching(/DO NOT EDIT/),
    });
  });
});

describe('language detection', () => {
  it('by extension, for every code language', () => {
    const examples: Record<string, Language> = {
      'a.go': 'go',
      'a.rs': 'rust',
      'A.java': 'java',
      'a.c': 'c',
      'a.h': 'c',
      'a.cc': 'cpp',
      'a.cpp': 'cpp',
      'a.hpp': 'cpp',
      'A.cs': 'csharp',
      'a.rb': 'ruby',
      'a.rake': 'ruby',
      'a.php': 'php',
      'a.kt': 'kotlin',
      'build.gradle.kts': 'kotlin',
      'a.swift': 'swift',
      'a.scala': 'scala',
      'a.sc': 'scala',
      'a.sh': 'bash',
      'a.bash': 'bash',
      'a.bats': 'bash',
      'a.zsh': 'bash',
      'a.lua': 'lua',
      'a.ex': 'elixir',
      'a.exs': 'elixir',
      'a.hs': 'haskell',
      'a.zig': 'zig',
      'a.ts': 'typescript',
      'a.tsx': 'tsx',
      'a.mjs': 'javascript',
      'a.py': 'python',
      'A.GO': 'go',
      'README.md': 'markdown',
      'a.yml': 'yaml',
      'notes.txt': 'text',
    };
    for (const [path, language] of Object.entries(examples)) expect(detectLanguage(path), path).toBe(language);
  });

  it('a C header that holds C++ is C++', () => {
    expect(detectLanguage('blocking_counter.h', fixture('blocking_counter.h'))).toBe('cpp');
    expect(detectLanguage('curl.h', '#ifndef CURL_H\n#define CURL_H\nint curl_global_init(long flags);\n')).toBe('c');
    expect(detectLanguage('x.h', 'template <typename T>\nT max(T a, T b);\n')).toBe('cpp');
  });

  it('by shebang, for scripts without an extension', () => {
    const shebangs: Record<string, Language> = {
      '#!/usr/bin/env bash': 'bash',
      '#!/bin/sh': 'bash',
      '#!/bin/bash -e': 'bash',
      '#!/usr/bin/env zsh': 'bash',
      '#!/usr/bin/env node': 'javascript',
      '#!/usr/bin/env -S node --no-warnings': 'javascript',
      '#!/usr/local/bin/node': 'javascript',
      '#!/usr/bin/env python3': 'python',
      '#!/usr/bin/python3.12 -u': 'python',
      '#!/usr/bin/env ruby': 'ruby',
      '#!/usr/bin/env php': 'php',
      '#!/usr/bin/env lua5.4': 'lua',
      '#!/usr/bin/env elixir': 'elixir',
      '#!/usr/bin/env runhaskell': 'haskell',
      '#!/usr/bin/env ts-node': 'typescript',
      '#!/usr/bin/env perl': 'text',
      '#!': 'text',
    };
    for (const [line, language] of Object.entries(shebangs))
      expect(detectLanguage('bin/tool', `${line}\necho hi\n`), line).toBe(language);
    expect(shebangInterpreter('#!/usr/bin/env -S VAR=1 python3.11 -u\n')).toBe('python');
    // The extension wins over the first line.
    expect(detectLanguage('script.py', '#!/usr/bin/env bash\n')).toBe('python');
  });

  it('an extensionless script from a real project is analysed as Bash', () => {
    const file = analyzeText('libexec/bats-core/bats-format-tap', fixture('bats-format-tap'));
    expect(file).toMatchObject({ language: 'bash', source: 'ast' });
    expect(file.elements.map((e) => e.name)).toEqual(
      expect.arrayContaining(['bats_tap_stream_plan', 'bats_tap_stream_not_ok', 'bats_tap_stream_unknown']),
    );
  });

  it('by well-known file names', () => {
    expect(detectLanguage('Rakefile')).toBe('ruby');
    expect(detectLanguage('Gemfile')).toBe('ruby');
    expect(detectLanguage('home/.bashrc')).toBe('bash');
    expect(detectLanguage('PKGBUILD')).toBe('bash');
    expect(detectLanguage('Pipfile')).toBe('toml');
  });
});

/** One small file in each code language, and its elements: [type, qualified name]. */
const SNIPPETS: Partial<Record<Language, { text: string; elements: [CodeElement['type'], string][] }>> = {
  typescript: {
    text: 'export function greet(name: string): string {\n  return name;\n}\n',
    elements: [['function', 'greet']],
  },
  tsx: {
    text: 'export function Greeting(): JSX.Element {\n  return <div />;\n}\n',
    elements: [['function', 'Greeting']],
  },
  javascript: { text: 'function greet(name) {\n  return name;\n}\n', elements: [['function', 'greet']] },
  python: {
    text: 'class Greeter:\n    def greet(self, name):\n        return name\n',
    elements: [
      ['class', 'Greeter'],
      ['method', 'Greeter.greet'],
    ],
  },
  go: {
    text: 'package main\n\ntype Greeter struct{}\n\nfunc (g Greeter) Greet(name string) string {\n\treturn name\n}\n',
    elements: [
      ['struct', 'Greeter'],
      ['method', 'Greeter.Greet'],
    ],
  },
  rust: {
    text: 'struct Greeter;\n\nimpl Greeter {\n    fn greet(&self) -> u32 {\n        1\n    }\n}\n',
    elements: [
      ['struct', 'Greeter'],
      ['impl', 'impl Greeter'],
      ['method', 'Greeter.greet'],
    ],
  },
  java: {
    text: 'class Greeter {\n  String greet(String name) { return name; }\n}\n',
    elements: [
      ['class', 'Greeter'],
      ['method', 'Greeter.greet'],
    ],
  },
  c: {
    text: 'struct point { int x; };\n\nint greet(int n) {\n  return n;\n}\n',
    elements: [
      ['struct', 'point'],
      ['field', 'point.x'],
      ['function', 'greet'],
    ],
  },
  cpp: {
    text: 'class Greeter {\n public:\n  int greet(int n) { return n; }\n};\n',
    elements: [
      ['class', 'Greeter'],
      ['method', 'Greeter.greet'],
    ],
  },
  csharp: {
    text: 'class Greeter {\n  string Greet(string name) { return name; }\n}\n',
    elements: [
      ['class', 'Greeter'],
      ['method', 'Greeter.Greet'],
    ],
  },
  ruby: {
    text: 'class Greeter\n  def greet(name)\n    name\n  end\nend\n',
    elements: [
      ['class', 'Greeter'],
      ['method', 'Greeter.greet'],
    ],
  },
  php: {
    text: '<?php\nclass Greeter {\n  function greet($name) {\n    return $name;\n  }\n}\n',
    elements: [
      ['class', 'Greeter'],
      ['method', 'Greeter.greet'],
    ],
  },
  kotlin: {
    text: 'class Greeter {\n  fun greet(name: String): String {\n    return name\n  }\n}\n',
    elements: [
      ['class', 'Greeter'],
      ['method', 'Greeter.greet'],
    ],
  },
  swift: {
    text: 'class Greeter {\n  func greet(name: String) -> String {\n    return name\n  }\n}\n',
    elements: [
      ['class', 'Greeter'],
      ['method', 'Greeter.greet'],
    ],
  },
  scala: {
    text: 'object Greeter {\n  def greet(name: String): String = name\n}\n',
    elements: [
      ['class', 'Greeter'],
      ['method', 'Greeter.greet'],
    ],
  },
  bash: { text: 'greet() {\n  echo "$1"\n}\n', elements: [['function', 'greet']] },
  lua: {
    text: 'local Greeter = {}\n\nfunction Greeter.greet(name)\n  return name\nend\n\nfunction Greeter:wave()\n  return 1\nend\n',
    elements: [
      ['function', 'Greeter.greet'],
      ['method', 'Greeter.wave'],
    ],
  },
  elixir: {
    text: 'defmodule Greeter do\n  def greet(name) do\n    name\n  end\nend\n',
    elements: [
      ['module', 'Greeter'],
      ['function', 'Greeter.greet'],
    ],
  },
  haskell: { text: 'greet :: String -> String\ngreet name = name\n', elements: [['function', 'greet']] },
  zig: {
    text: 'const Greeter = struct {\n    fn greet(n: u32) u32 {\n        return n;\n    }\n};\n',
    elements: [
      ['struct', 'Greeter'],
      ['method', 'Greeter.greet'],
    ],
  },
};

describe('language names', () => {
  it('accepts every language and its common aliases, in any case', () => {
    for (const language of LANGUAGES) expect(canonicalLanguage(language)).toBe(language);
    const aliases: Record<string, Language> = {
      golang: 'go',
      rs: 'rust',
      'c++': 'cpp',
      cxx: 'cpp',
      cs: 'csharp',
      'c#': 'csharp',
      kt: 'kotlin',
      sh: 'bash',
      shell: 'bash',
      zsh: 'bash',
      rb: 'ruby',
      py: 'python',
      ts: 'typescript',
      js: 'javascript',
      ex: 'elixir',
      hs: 'haskell',
      md: 'markdown',
      yml: 'yaml',
      ' Go ': 'go',
      GoLang: 'go',
    };
    for (const [alias, language] of Object.entries(aliases)) expect(canonicalLanguage(alias), alias).toBe(language);
    expect(canonicalLanguage('cobol')).toBeUndefined();
    expect(canonicalLanguage('constructor')).toBeUndefined(); // not an Object.prototype key either
  });

  it('every code language has a small snippet below', () => {
    const code = LANGUAGES.filter((language) => analysisOf(language).kind === 'code');
    expect(Object.keys(SNIPPETS).sort()).toEqual([...code].sort());
  });

  it('every language has its own definition: the TypeScript extractor reads TypeScript, TSX and JavaScript alone', () => {
    const typescriptFamily = ['typescript', 'tsx', 'javascript'];
    for (const language of LANGUAGES) {
      const analysis = analysisOf(language);
      if (analysis.kind !== 'code') {
        // Read as text, explicitly: no grammar, and a splitter of its own kind.
        expect(analysis, language).not.toHaveProperty('grammar');
        expect(typeof analysis.split, language).toBe('function');
        continue;
      }
      expect(analysis.extractor === typescriptExtractor, language).toBe(typescriptFamily.includes(language));
      expect(analysis.grammar.package, language).toMatch(/tree-sitter-/);
    }
    // The generic languages each have an extractor over their own table, not one shared by mistake.
    const extractors = LANGUAGES.map((language) => analysisOf(language))
      .filter((analysis) => analysis.kind === 'code')
      .map((analysis) => analysis.extractor);
    expect(new Set(extractors).size).toBe(LANGUAGES.filter(isCodeLanguage).length - 2);
  });

  // An extractor in the wrong entry would still say `ast`: only the elements it finds
  // tell that the language's own grammar and extractor read the snippet.
  it.each(Object.entries(SNIPPETS))('%s: its grammar loads and its table finds the elements', (language, snippet) => {
    const extension = LANGUAGE_NAMES[language as Language].extensions[0]!;
    const file = analyzeText(`x${extension}`, snippet.text);
    expect(file).toMatchObject({ language, source: 'ast', warnings: [] });
    expect(file.elements.map((element) => [element.type, qualified(element)])).toEqual(snippet.elements);
  });
});

describe('model enrichment', () => {
  it('enriches a file of any language: the prompt names it, the answer (with the new kinds) matches the tree', async () => {
    const text = fixture('either.rs');
    const file = analyzeText('tokio-util/src/either.rs', text);
    const prompts: string[] = [];
    const answer = {
      'file-path': file.path,
      language: 'rust',
      summary: 'MODEL: an Either future and stream.',
      imports: [],
      elements: file.elements.map((e) => ({
        'property-type': e.type,
        name: e.name,
        'access-modifier': e.access,
        'start-line': e.startLine,
        'end-line': e.endLine,
        signature: e.signature,
        description: `MODEL: ${e.name}.`,
      })),
    };
    // Like a model under the call's format: the elements the prompt lists, no others.
    const listed = (prompt: string) =>
      new Set([...prompt.matchAll(/^- (.+) \([\w-]+, lines (\d+)-\d+\)$/gm)].map((m) => `${m[1]}@${m[2]}`));
    const server = await FakeOllama.start({
      chat: (request) => {
        const prompt = request.messages[0]!.content;
        prompts.push(prompt);
        const asked = listed(prompt);
        const elements = answer.elements.filter((e) => asked.has(`${e.name}@${e['start-line']}`));
        return { content: JSON.stringify({ ...answer, elements }) };
      },
    });
    try {
      const events: AnalysisEvent[] = [];
      const enriched = await new OllamaEnricher({
        host: server.url,
        model: 'test-model',
        timeoutMs: 5_000,
        onEvent: (e) => events.push(e),
      }).enrich(file, text);
      expect(prompts[0]).toMatch(/^Language: rust$/m);
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'llm-enriched',
          matched: file.elements.filter((e) => !e.description && e.type !== 'field' && e.type !== 'property').length,
          dropped: 0,
        }),
      );
      expect(enriched.source).toBe('ast+llm');
      expect(find(enriched, 'impl Future for Either').description).toBe('MODEL: impl Future for Either.');
      // The author's doc comment wins over the model's paraphrase.
      expect(find(enriched, 'delegate_call').description).toMatch(/^A small helper macro/);
    } finally {
      await server.close();
    }
  });
});

describe('element types', () => {
  it('the schema, the filters and the types agree', () => {
    const schemaTypes = (
      RESULT_SCHEMA as { properties: { elements: { items: { properties: { 'property-type': { enum: string[] } } } } } }
    ).properties.elements.items.properties['property-type'].enum;
    expect([...schemaTypes].sort()).toEqual([...CODE_ELEMENT_TYPES].sort());
    for (const type of [
      'class',
      'function',
      'method',
      'property',
      'field',
      'struct',
      'interface',
      'enum',
      'namespace',
      'constructor',
      'delegate',
      'signal',
      'constant',
      'trait',
      'impl',
      'module',
      'macro',
      'type-alias',
    ]) {
      expect(CODE_ELEMENT_TYPES, type).toContain(type);
    }
    for (const type of CODE_ELEMENT_TYPES) expect(ELEMENT_TYPES).toContain(type);
  });
});
