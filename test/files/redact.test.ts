/**
 * Credentials with no key-like name to give them away: random-looking string
 * literals, and passwords or tokens named in prose. And the other side of
 * the same rules: ordinary code and prose, and this repository's own
 * sources, stay as they are.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { looksRandom, redactSecrets } from '../../src/files/redact.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Each input with the credential's line as it must read after redaction. */
function expectRedacted(cases: readonly (readonly [string, string])[]): void {
  for (const [input, expected] of cases) expect(redactSecrets(input), input).toBe(expected);
}

function expectKept(inputs: readonly string[]): void {
  for (const input of inputs) expect(redactSecrets(input), input).toBe(input);
}

describe('random-looking string literals', () => {
  it('are redacted whatever they are assigned to, in any language', () => {
    expectRedacted([
      ['const plainBlob = "UNLABELLED_SECRET_9fK2xQ7LmP3vR8tZ1wB4";', 'const plainBlob = "[redacted]";'],
      ["blob = 'q8Zr3KfP0aLm9XwT2bNc7VdY4eHs6UjG'", "blob = '[redacted]'"],
      ['let conn = Client::new("wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9Xp2LmKd");', 'let conn = Client::new("[redacted]");'],
      ['client := New(`Rk9vQmFyQmF6MTIzNDU2Nzg5MGFiY2RlZg0x`)', 'client := New(`[redacted]`)'],
      ['{ "upstream": "tok_9f8e7d6c5b4a39f8e7d6c5b4a3z1Y2x" }', '{ "upstream": "[redacted]" }'],
      ['  - "Zx01Qv_k9P2mQ7rT4wX8zL3n"', '  - "[redacted]"'],
      ['send(payload, "a8f3c9e1b7d24e6f0a9c-deploy")', 'send(payload, "[redacted]")'],
    ]);
  });

  it('are told from identifiers, paths, hashes and ids, which stay', () => {
    expectKept([
      "import { BuiltinEmbedder } from '../vector/builtin-embedder.js';",
      "export * from './chunk-Bnu9O96Y.cjs';",
      "const kind = 'Uint8ClampedArrayConstructor';",
      "lookup('ES2015StringPrototypeMethods');",
      "route('Newtonsoft.Json.Linq.JsonLoadSettings.CommentHandling');",
      "const commit = '0203221c4f5e8a9b7d6c5e4f3a2b1c0d9e8f7a6b';", // hex: a digest or a commit
      'const id = "9491d710-3185-4e06-bea0-6a2f275345e0";', // UUID
      '"integrity": "sha512-Q8nFvN3L0dYqKp7yWbXr2sT9uVzA1cE4gH6jM0oPqRs5tU8wXyZ1aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789AB=="',
      "const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';", // an alphabet
      "const digits = '0123456789abcdefghijklmnopqrstuvwxyz';",
      "const host = 'api.eu-west-1.amazonaws.com';",
      "const image = 'ami-0528a5175983e7f28';", // a resource id: 17 hex digits
      "const user = 'AIDGPMS9RO4H3FEXAMPLE';", // documentation's stand-in
      "assert fromhex('0x1.df11f45f4e61ap+2') == x",
      "const word = 'internationalization';",
      "const short = 'k9P2mQ7rT4';", // under 20 characters
      'const url = "https://example.com/a/b?c=d";',
    ]);
  });

  it('decide by entropy and by the shape of their longest run', () => {
    expect(looksRandom('UNLABELLED_SECRET_7Hq2Lp9Zr4Wm8Kx3Vn6B')).toBe(true);
    expect(looksRandom('UNLABELLED_SECRET_0123456789abcdef')).toBe(false); // a run, not a key
    expect(looksRandom('UNLABELLED_SECRET_PASSWORD_FOR_TESTS')).toBe(false); // words
    expect(looksRandom('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa111')).toBe(false); // low entropy
  });
});

describe('credentials named in prose and comments', () => {
  it('are redacted after "password:", "is" or "was", quoted or not, keeping the sentence', () => {
    expectRedacted([
      ['the database password: hunter2-long-value-9f3k', 'the database password: [redacted]'],
      ['The admin password is hunter2.', 'The admin password is [redacted].'],
      [
        'the password for the staging db is s3cr3t!Pa55 ask ops',
        'the password for the staging db is [redacted] ask ops',
      ],
      ['API key: AbC123xyz789', 'API key: [redacted]'],
      ['- access token: `p4ss-w0rd-123`', '- access token: `[redacted]`'],
      ['// the client secret was 7f!kq-29xz, rotated since', '// the client secret was [redacted], rotated since'],
      ['# Secret key: zz9-Plural-Z-Alpha', '# Secret key: [redacted]'],
    ]);
  });

  it('leave words, references and types alone', () => {
    expectKept([
      'the token is refreshed every 5 minutes',
      'The password is required.',
      'the secret is stored in Vault',
      'pass token: process.env.GITHUB_TOKEN to the client',
      'password: string;',
      'secret: Uint8Array,',
      'the token was position-only',
      'Pass the API key: see OCVECTOR_API_KEY below.',
      'password: {{ db_password }}',
      'the token is $GITHUB_TOKEN9',
      'the password is <your password>',
      'the password: ******** (masked)',
      'the token is https://example.com/token-help',
      'Basic authentication over TLS only',
      'Token characters are letters and digits',
    ]);
    // After the scheme, a credential is redacted however plain it looks, but not a word of prose.
    expectRedacted([
      ['Authorization: Basic dXNlcjpwYXNzd29yZA==', 'Authorization: Basic [redacted]'],
      ['Authorization: Token 9f8e7d6c5b4a3921', 'Authorization: Token [redacted]'],
      ['curl -H "Authorization: Bearer abcdEFGH1234"', 'curl -H "Authorization: Bearer [redacted]"'],
    ]);
  });

  it('keep line breaks and leave the rest of a Markdown page alone', () => {
    const page = [
      '# Staging',
      '',
      'Connect with `psql`. The database password: hunter2-long-value-9f3k',
      'and the replica is read-only.',
      '',
      '    curl https://db.internal/health',
    ].join('\n');
    const redacted = redactSecrets(page);
    expect(redacted.split('\n')).toHaveLength(6);
    expect(redacted).toBe(page.replace('hunter2-long-value-9f3k', '[redacted]'));
  });
});

describe('false positives on real sources', () => {
  function sourcesUnder(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? sourcesUnder(path) : /\.(ts|md)$/.test(name) ? [path] : [];
    });
  }

  it("leave every file of this repository's src/ unchanged (but the examples in redact.ts itself)", () => {
    const files = sourcesUnder(join(ROOT, 'src')).filter((path) => !path.endsWith('redact.ts'));
    expect(files.length).toBeGreaterThan(50);
    const changed = files.filter((path) => {
      const text = readFileSync(path, 'utf8');
      return redactSecrets(text) !== text;
    });
    expect(changed).toEqual([]);
  });

  it.each([
    'node_modules/typescript/lib/typescript.d.ts',
    'node_modules/typescript/lib/lib.es5.d.ts',
    'node_modules/@types/node/fs.d.ts',
    'node_modules/zod/src/v3/types.ts',
    'README.md',
  ])('leave %s unchanged', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    expect(redactSecrets(text) === text).toBe(true);
  });
});

describe('the shapes found missing in issue 38', () => {
  // Built from parts so that no scanner takes this file for a leak.
  const armour = (kind: string, edge: 'BEGIN' | 'END') => `-----${edge} ${kind}-----`;

  it('redact every armoured private key, its headers and body, and to the end of the text when END is missing', () => {
    for (const kind of [
      'PRIVATE KEY',
      'RSA PRIVATE KEY',
      'OPENSSH PRIVATE KEY',
      'ENCRYPTED PRIVATE KEY',
      'PGP PRIVATE KEY BLOCK',
    ]) {
      const block = [
        armour(kind, 'BEGIN'),
        'Version: GnuPG v2',
        'Comment: release signing key',
        '',
        'lQOYBGXf4kQBCAC9zv1Yq3kLmN0pQrStUvWxYz',
        '=Ab12',
        armour(kind, 'END'),
      ].join('\n');
      expect(redactSecrets(`const key = \`${block}\`;\nnext();`), kind).toBe(
        `const key = \`[redacted]${'\n'.repeat(6)}\`;\nnext();`,
      );
      const cut = block.split('\n').slice(0, 5).join('\n');
      expect(redactSecrets(`# Keys\n\n${cut}\nmore body`), kind).toBe(`# Keys\n\n[redacted]${'\n'.repeat(5)}`);
    }
  });

  it('redact Vault tokens, but not the legacy s. prefix, which is everywhere', () => {
    const token = (prefix: string) => `${prefix}.CAESIGx0Yq3kLmN0pQrStUvWxYz9`;
    expectRedacted([
      [`vault login ${token('hvs')}`, 'vault login [redacted]'],
      [`client.setToken(${token('hvb')})`, 'client.setToken([redacted])'],
      [`recovery: ${token('hvr')} (rotated)`, 'recovery: [redacted] (rotated)'],
    ]);
    expectKept(['const s = this.CAESIGx0Yq3kLmN0pQrStUvWxYz9;', 'see hvs.md for the Vault setup']);
  });

  it("redact a kubeconfig's client key and user token, and keep its certificates", () => {
    const kubeconfig = [
      'users:',
      '- name: deployer',
      '  user:',
      '    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==',
      '    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo=',
      '- name: ci',
      '  user:',
      '    token: abcdef.0123456789abcdef',
      '{ "client-key-data": "LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0t" }',
    ].join('\n');
    expect(redactSecrets(kubeconfig).split('\n')).toEqual([
      'users:',
      '- name: deployer',
      '  user:',
      '    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==',
      '    client-key-data: [redacted]',
      '- name: ci',
      '  user:',
      '    token: [redacted]',
      '{ "client-key-data": "[redacted]" }',
    ]);
  });

  it('redact the path of Slack and Discord webhooks, keeping the host', () => {
    const slack = ['https://hooks.slack.com/services', 'T0ABCDEFG', 'B0HIJKLMN', 'xoXo9Zz9abcdefghijklmnop'].join('/');
    const discord = ['https://discord.com/api/webhooks', '112233445566778899', 'Zz9-abcDEF_ghiJKL0123456789'].join('/');
    expectRedacted([
      [`const HOOK = "${slack}";`, 'const HOOK = "https://hooks.slack.com/services/[redacted]";'],
      [`notify: ${discord}`, 'notify: https://discord.com/api/webhooks/[redacted]'],
    ]);
    expectKept(['see https://api.slack.com/messaging/webhooks for the setup']);
  });

  it('redact a value named pass, passwd or pwd as a word of the name, in code and configuration', () => {
    expectRedacted([
      ['const dbPass = "x9Zq-pw";', 'const dbPass = "[redacted]";'],
      ["pass: 'hunter22'", "pass: '[redacted]'"],
      ['db_pass = "s3cr3t"', 'db_pass = "[redacted]"'],
      ['DB_PASS=s3cr3tvalue', 'DB_PASS=[redacted]'],
      ['smtpPass := "mailpw1"', 'smtpPass := "[redacted]"'],
      ['{ "db_pass": "js0npw" }', '{ "db_pass": "[redacted]" }'],
      ['  pass: hunter22', '  pass: [redacted]'],
      ['PASSWD = "toml-pw1"', 'PASSWD = "[redacted]"'],
      ["pwd: 'p4ss'", "pwd: '[redacted]'"],
    ]);
    // Another word with pass in it, pass as a verb, or a value that is no secret.
    expectKept([
      'passes = 3',
      "password: ''",
      'passThrough = true',
      'const passThrough = "all";',
      'bypass = "cache"',
      "compass: 'north'",
      'pass_env = "HOME"',
      '  pass: true',
      'DB_PASS=',
    ]);
  });
});
