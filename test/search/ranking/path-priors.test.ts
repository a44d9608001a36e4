import { describe, expect, it } from 'vitest';
import {
  heldBackRoles,
  meaningfulWords,
  pathWordMatch,
  rolePrior,
  rolePriorOf,
  requestedRoles,
} from '../../../src/search/ranking/path-priors.js';

const keywords = (query: string) => meaningfulWords(query.split(/\s+/));

describe('how a path spells the query', () => {
  it('a file named after what the question is about is covered whole, through inflections', () => {
    expect(pathWordMatch('aiohttp/streams.py', keywords('response streaming and payload')).coverage).toBe(1);
    expect(pathWordMatch('model2vec/distill/distillation.py', keywords('how a model is distilled')).coverage).toBe(1);
    expect(pathWordMatch('lib/rack/mime.rb', keywords('MIME type detection from file extensions')).coverage).toBe(1);
  });

  it('the vocabulary joins a file name to the word the question uses for the same idea', () => {
    expect(pathWordMatch('args.go', keywords('positional argument validators')).coverage).toBe(1);
    expect(pathWordMatch('src/config.ts', keywords('loading settings from disk')).coverage).toBe(1);
  });

  it('counts the share of the file name the query spells, and of the query the path spells', () => {
    const match = pathWordMatch('lib/http/middleware_stack.rb', keywords('middleware order in the HTTP layer'));
    // middleware of middleware, stack
    expect(match.coverage).toBeCloseTo(1 / 2);
    // middleware from the file's name and http from its directory's, of middleware, order, http, layer
    expect(match.share).toBeCloseTo(2 / 4);
  });

  it('words that only share a short prefix, or none, do not match', () => {
    expect(pathWordMatch('src/parser.ts', keywords('parallel workers')).coverage).toBe(0);
    expect(pathWordMatch('src/index.ts', keywords('the and of')).coverage).toBe(0);
    expect(pathWordMatch('src/a.ts', keywords('alias handling')).coverage).toBe(0);
  });
});

describe('path roles', () => {
  it('holds tests back unless the query asks for them', () => {
    expect(rolePrior('src/foo.test.ts', requestedRoles(['parse', 'config']))).toBeLessThan(1);
    expect(rolePrior('src/foo.test.ts', requestedRoles(['config', 'tests']))).toBe(1);
  });

  it('knows a package of tests named after what it tests, not a word that ends in "test"', () => {
    const none = requestedRoles(['client', 'auth']);
    expect(rolePrior('caddytest/integration/caddyfile_adapt/tls_client_auth.caddyfiletest', none)).toBeLessThan(1);
    expect(rolePrior('integration_test/cases/repo.exs', none)).toBeLessThan(1);
    expect(rolePrior('e2e-tests/login.ts', none)).toBeLessThan(1);
    expect(rolePrior('src/latest/client.ts', none)).toBe(1);
    expect(rolePrior('src/contest/auth.go', none)).toBe(1);
  });

  it('holds back a file no grammar reads in a format seldom written by hand, unless the query names it', () => {
    const words = (...list: string[]) => new Set(list);
    const none = requestedRoles(['ensure', 'trailing', 'newline', 'generated', 'files']);
    const plain = (path: string, asked = none, typed = words('ensure', 'trailing', 'newline')) =>
      heldBackRoles(path, asked, 'text', typed);
    expect(plain('installer/templates/phx_single/lib/app_name/application.ex.eex')).toEqual(['plain']);
    expect(plain('ktor-server/api/ktor-server.klib.api')).toEqual(['plain']);
    expect(plain('pom.xml')).toEqual(['plain']);
    expect(plain('tests/data/test1286')).toEqual(['test', 'plain']);
    expect(heldBackRoles('installer/lib/phx_new/generator.ex', none, 'elixir', words('ensure'))).toEqual([]);
    // The query names the file: its extension, its name, or the whole name of a file without an extension.
    expect(plain('pom.xml', none, words('bump', 'the', 'xml', 'plugin'))).toEqual([]);
    expect(plain('gson/pom.xml', none, words('update', 'the', 'pom'))).toEqual([]);
    expect(plain('docker/Dockerfile', none, words('dockerfile', 'base', 'image'))).toEqual([]);
    expect(plain('docker/Dockerfile', none, words('docker', 'base', 'image'))).toEqual(['plain']);
    expect(plain('installer/templates/app.ex.eex', requestedRoles(['fix', 'the', 'templates']))).toEqual([]);
    // A format not known to be seldom edited is taken for code: a language with no grammar here, a
    // schema, a style sheet, a view template.
    for (const path of ['lib/main.dart', 'src/App.vue', 'db/schema.sql', 'kernels/add.cu', 'app/views/index.html.erb'])
      expect(plain(path), path).toEqual([]);
    // Not told the language (a row without it): no role from it.
    expect(heldBackRoles('ktor-server/api/ktor-server.api', none)).toEqual([]);
    expect(rolePriorOf(['plain'])).toBeLessThan(1);
    expect(rolePriorOf(['plain'])).toBeGreaterThan(rolePriorOf(['test']));
  });

  it('holds documentation and changelogs back further than tests: they quote the question', () => {
    const none = requestedRoles(['fix', 'cache']);
    expect(rolePrior('CHANGELOG.md', none)).toBeLessThan(rolePrior('tests/test_cache.py', none));
    expect(rolePrior('docs/de-DE/config/README.md', none)).toBeLessThan(rolePrior('src/cache.py', none));
    expect(rolePrior('CHANGELOG.md', requestedRoles(['changelog', 'cache']))).toBe(1);
  });

  it('counts issue and pull-request templates as documentation: prose for people, not the code a question is about', () => {
    const none = requestedRoles(['improve', 'connection', 'error', 'reporting']);
    const code = rolePrior('src/poetry/utils/authenticator.py', none);
    expect(rolePrior('.github/ISSUE_TEMPLATE/---bug-report.yml', none)).toBeLessThan(code);
    expect(rolePrior('.github/PULL_REQUEST_TEMPLATE.md', none)).toBeLessThan(code);
    expect(rolePrior('.github/pull_request_template.md', none)).toBeLessThan(code);
    expect(rolePrior('.github/workflows/tests.yaml', none)).toBe(code);
  });
});
