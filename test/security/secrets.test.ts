/**
 * Issue 54, case 9: secrets reaching agents. The shapes of the secret corpus
 * (test/fixtures/secrets/corpus.ts) that the rules catch stay caught, with
 * gitleaks' vendored rules beside the hand-kept ones; and every output shows
 * a snippet redacted exactly as the index redacted it: the library's results,
 * the CLI's text and --json, read from a real index.
 */
import { describe, expect, it, vi } from 'vitest';
import { searchMain } from '../../src/cli/search-command.js';
import { redactSecrets } from '../../src/files/redact.js';
import { findRuleSecrets } from '../../src/files/secret-rules.js';
import { Indexer } from '../../src/indexing/indexer.js';
import { Searcher } from '../../src/search/searcher.js';
import { leaked, SECRET_CASES } from '../fixtures/secrets/corpus.js';
import { cleanedUpAfterEach, tempRepo } from '../helpers/repo.js';

const owned = cleanedUpAfterEach();

/** What `run` writes to stdout, kept from the test's own output. */
async function printedBy(run: () => Promise<void>): Promise<string> {
  let printed = '';
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    printed += String(chunk);
    return true;
  });
  try {
    await run();
  } finally {
    write.mockRestore();
  }
  return printed;
}

const caseById = (id: string) => SECRET_CASES.find((secretCase) => secretCase.id === id)!;

/** Shapes of issue 54's finding that reached an agent on a17b4eb and are redacted now. */
const NOW_CAUGHT = [
  'AWS credentials in a file not named credentials',
  'Azure storage connection string',
  'Azure Service Bus connection string',
  'npm token in npm config set',
  'pypi- token in setup.cfg',
  'password in config.ini',
  'password in my.cnf',
  'curl -u user:pass',
  'databricks --token-value dapi',
  'signing_key:',
];

/** Shapes that reached an agent with gitleaks' rules too, taken by the rules of credential-contexts.ts and redact.ts. */
const CONTEXT_CAUGHT = [
  'Azure SAS sig=',
  'netrc content under another name',
  'SSH2 (RFC 4716) private key in a .txt',
  'PuTTY private key in a .txt',
  'redis://:pass@',
  'JDBC &password=',
  'PGPASSWORD=… cmd',
  'mysql -pPASS',
  'tfvars admin_pw',
  'XML <password>',
  'Kubernetes tls.key:',
  '--client-secret GOCSPX-',
  'postgres://app:p…@…@host',
  'Telegram bot token in a URL',
  'requests auth=(user, password)',
  'az login -p',
  '.NET SQL connection string Password=',
  'pgpass line under another name',
  // Caught by gitleaks' rules once the corpus held their real form (the corpus's values were not).
  'Twilio API key in a call',
  'age secret key',
];

describe('the secret corpus', () => {
  it.each([...NOW_CAUGHT, ...CONTEXT_CAUGHT])('%s: no part of the secret is left, and the line count is kept', (id) => {
    const { text, secrets } = caseById(id);
    const redacted = redactSecrets(text);
    for (const secret of secrets) expect(leaked(secret, redacted), secret).toBe(false);
    expect(redacted.split('\n')).toHaveLength(text.split('\n').length);
  });

  it('is caught whole: every one of its 50 shapes', () => {
    const missed = SECRET_CASES.filter(({ text, secrets }) =>
      secrets.some((secret) => leaked(secret, redactSecrets(text))),
    );
    expect(missed.map(({ id }) => id)).toEqual([]);
  });

  it('is redacted the same when redacted twice (an output redacts what the index already redacted)', () => {
    for (const { text } of SECRET_CASES) {
      const once = redactSecrets(text);
      expect(redactSecrets(once)).toBe(once);
    }
  });

  it("finds gitleaks' shapes with its vendored rules, and nothing in ordinary code", () => {
    expect(findRuleSecrets(caseById('npm token in npm config set').text).map((span) => span.rule)).toEqual([
      'npm-access-token',
    ]);
    expect(
      findRuleSecrets('export function tokenize(text: string): string[] {\n  return text.split(/\\s+/);\n}\n'),
    ).toEqual([]);
  });
});

/** Three secrets the index redacted on a17b4eb while the CLI's snippet printed them in clear. */
const FILES = {
  'src/db.ts': caseById('dbPass = "…"').text,
  'src/signing.ts': caseById('PGP private key block').text,
  'docs/vault.md': caseById('Vault token').text,
};
const SECRETS = [caseById('dbPass = "…"'), caseById('PGP private key block'), caseById('Vault token')].flatMap(
  (secretCase) => secretCase.secrets,
);
const QUERIES = ['openDatabase dbPass', 'RELEASE_KEY sign release', 'vault login'];

async function indexed(): Promise<string> {
  const repo = (owned.repo = tempRepo(FILES));
  const indexer = new Indexer({ path: repo.root, embedder: 'builtin', llm: false });
  await indexer.run();
  return indexer.indexDir;
}

describe('snippets of every output are redacted as the index redacts them', () => {
  it('in the library’s results', async () => {
    const indexDir = await indexed();
    const searcher = await Searcher.open({ indexDir });
    try {
      const shown: string[] = [];
      for (const query of QUERIES) {
        const response = await searcher.search(query, { k: 10 });
        for (const result of response.results) shown.push(result.snippet ?? '', result.signature);
      }
      const text = shown.join('\n');
      expect(text).toContain('[redacted]');
      expect(text).toContain('openDatabase');
      for (const secret of SECRETS) expect(leaked(secret, text), secret).toBe(false);
    } finally {
      await searcher.close();
    }
  });

  it('in the CLI’s text and --json', async () => {
    const indexDir = await indexed();
    const printed = await printedBy(async () => {
      for (const query of QUERIES) {
        expect(await searchMain([query, '--db', indexDir, '-k', '10'])).toBe(0);
        expect(await searchMain([query, '--db', indexDir, '-k', '10', '--json'])).toBe(0);
      }
    });
    expect(printed).toContain('[redacted]');
    expect(printed).toContain('"snippet"');
    for (const secret of SECRETS) expect(leaked(secret, printed), secret).toBe(false);
  });
});

describe('--refs lines are redacted as the index redacts them', () => {
  it('in the CLI’s text and --json, a key block named on its first line included', async () => {
    const indexDir = await indexed();
    const printed = await printedBy(async () => {
      for (const symbol of ['dbPass', 'RELEASE_KEY']) {
        expect(await searchMain(['--refs', symbol, '--db', indexDir])).toBe(0);
        expect(await searchMain(['--refs', symbol, '--db', indexDir, '--json'])).toBe(0);
      }
    });
    expect(printed).toContain('const dbPass = "[redacted]"');
    expect(printed).toContain('RELEASE_KEY = `[redacted]');
    for (const secret of SECRETS) expect(leaked(secret, printed), secret).toBe(false);
  });
});
