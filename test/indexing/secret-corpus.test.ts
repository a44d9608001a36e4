/**
 * Credentials written into ordinary files: 33 of them, in the forms people
 * write them, two with no key-like name (a random literal, a password in
 * Markdown prose), and two files that are secrets by their name (.env-prod,
 * .vault-token). None may reach the index directory (signatures, descriptions,
 * documents, the lexical index, the occurrences table, the vectors) or an
 * answer of the agent tool. Each secret carries a marker (Zx01Qv ... Zx35Qv)
 * so that even a fragment of it (a token of the lexical index) is found.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CodebaseSearchTool } from '../../src/index.js';
import { Indexer } from '../../src/indexing/indexer.js';
import { isSecretPath, redactSecrets } from '../../src/tool/secrets.js';
import { cleanedUpAfterEach, tempRepo } from '../helpers/repo.js';

const owned = cleanedUpAfterEach();
const m = (n: number) => `Zx${String(n).padStart(2, '0')}Qv`;
/** An armour line, built from parts so that no scanner takes this file for a leak. */
const armour = (edge: 'BEGIN' | 'END', kind: string) => `-----${edge} ${kind}-----`;

const CORPUS: Record<string, string> = {
  'src/billing.ts': `/** Talks to the billing provider. */
export class BillingClient {
  private token: string = "tk${m(1)}a9";
  apiKey: string = "ak-${m(2)}-77";
  readonly password = "pw${m(3)}";

  /** Sends an invoice. Authorization: Bearer beAr${m(4)}xyz0 */
  send(): string {
    const dbPassword = '${m(5)}';
    const url = 'postgres://admin:pg${m(6)}pw@db.internal:5432/app';
    return [this.token, this.apiKey, dbPassword, url].join();
  }
}

export const STRIPE = 'sk_live_${m(7)}abcdefghijklmn';
export const AWS_ID = 'AKIA${m(8).toUpperCase()}ABCDEFGHIJ';
`,
  'src/keys.ts': `export const GITHUB = "ghp_${m(9)}abcdefghijklmnopqrstuvwxyz0123";
export const SLACK = "xoxb-123456-${m(10)}abcdef";
export const OPENAI = "sk-proj-${m(11)}abcdefghijklmnopqrst";
export const GOOGLE = "AIza${m(12)}abcdefghijklmnopqrstuvwxyz012";
export const JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ${m(13)}IxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N";
export const PEM = \`-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEA${m(14)}abcdefghijklmnop
-----END RSA PRIVATE KEY-----\`;
export function after(): number {
  return 1;
}
`,
  'app/settings.py': `"""Settings of the service."""
API_KEY: str = "py${m(15)}key"
SECRET_KEY = "django-insecure-${m(16)}"


def load_settings() -> dict:
    """Loads the settings."""
    return {"key": API_KEY}
`,
  'cmd/main.go': `package main

// Connect opens the connection.
func Connect() string {
	clientSecret := "go${m(17)}cs"
	return clientSecret
}
`,
  'src/lib.rs': `/// The token of the service.
pub const API_TOKEN: &str = "rs${m(18)}tok";

pub fn token() -> &'static str {
    API_TOKEN
}
`,
  'src/Main.java': `public class Main {
    private static final String SECRET = "jv${m(19)}sec";

    public String secret() {
        return SECRET;
    }
}
`,
  'config/app.json': `{ "name": "app", "auth_token": "js${m(20)}tok" }
`,
  'config/app.yaml': `service: app
api_key: ym${m(21)}key
`,
  'docs/API.md': `# API

Call it with a token:

    curl -H "Authorization: Bearer md${m(22)}tokenvalue" https://api.example.com/v1
`,
  'src/upstream.ts': `/** Connects to the upstream mirror. */
export function connectUpstream(): string {
  const plainBlob = "UNLABELLED_SECRET_${m(23)}9fK2xQ7LmP3vR8tZ1wB4";
  return plainBlob;
}
`,
  'docs/STAGING.md': `# Staging

Connect with psql. The database password: hunter2-long-value-${m(24)}-7c1
and the replica is read-only.
`,
  // The shapes issue 38 found stored and served in clear.
  'src/signing.ts': `/** Signs the release. */
export const RELEASE_KEY = \`${armour('BEGIN', 'PGP PRIVATE KEY BLOCK')}
Version: GnuPG v2
Comment: ${m(25)} release signing

lQOYBGXf4kQBCAC9${m(26)}zv1Yq3kLmN0pQrStUvWxYz
=Ab12
${armour('END', 'PGP PRIVATE KEY BLOCK')}\`;

export function sign(): string {
  return RELEASE_KEY;
}
`,
  'docs/KEYS.md': `# Keys

The old signing key, pasted here in part:

${armour('BEGIN', 'PGP PRIVATE KEY BLOCK')}

lQOYBGXf4kQBCAC9${m(27)}Yq3kLmN0pQrStUvWxYz
`,
  '.env-prod': `SIGNUP_CODE=${m(28)}
`,
  '.vault-token': `hvs.CAESIGx${m(29)}Yq3kLmN0pQrStUvWxYz
`,
  'docs/VAULT.md': `# Vault

    vault login hvs.CAESIGx${m(30)}Yq3kLmN0pQrStUvWxYz
`,
  'deploy/kubeconfig.yaml': `apiVersion: v1
kind: Config
users:
- name: deployer
  user:
    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQ${m(31)}o=
`,
  'src/notify.ts': `/** Posts a release note to the team channel. */
export const RELEASE_HOOK = "https://hooks.slack.com/services/T0ABCDEFG/B0HIJKLMN/xoXo${m(32)}abcdefghijklm";
`,
  'src/db.ts': `/** Opens the database. */
export function openDatabase(): string {
  const dbPass = "${m(33)}-pw";
  return dbPass;
}
`,
  'config/db.yaml': `database:
  user: app
  pass: '${m(34)}-db'
  db_pass: ${m(35)}-db
`,
};
const MARKERS = Array.from({ length: 35 }, (_, i) => m(i + 1).toLowerCase());
/** The files the scan never opens: their markers are not redacted but left on the disk. */
const SECRET_FILES = Object.keys(CORPUS).filter(isSecretPath);

/** Every marker found in the bytes of every file of a directory (case-insensitive). */
function markersIn(dir: string): string[] {
  const found = new Set<string>();
  for (const name of readdirSync(dir)) {
    const text = readFileSync(join(dir, name)).toString('latin1').toLowerCase();
    for (const marker of MARKERS) if (text.includes(marker)) found.add(`${marker} in ${name}`);
  }
  return [...found];
}

describe('the secret corpus', () => {
  it('has 35 secrets, and redaction removes every one while keeping the line count', () => {
    const all = Object.values(CORPUS).join('\n');
    expect(MARKERS.filter((marker) => all.toLowerCase().includes(marker))).toHaveLength(35);
    expect(SECRET_FILES).toEqual(['.env-prod', '.vault-token']);
    for (const [path, text] of Object.entries(CORPUS)) {
      if (SECRET_FILES.includes(path)) continue;
      const redacted = redactSecrets(text);
      expect(
        MARKERS.filter((marker) => redacted.toLowerCase().includes(marker)),
        path,
      ).toEqual([]);
      expect(redacted.split('\n').length, path).toBe(text.split('\n').length);
    }
  });

  it('leaves nothing in the index directory and nothing in the tool’s answers', async () => {
    const repo = (owned.repo = tempRepo(CORPUS));
    const indexer = new Indexer({ path: repo.root, embedder: 'builtin', llm: false });
    const summary = await indexer.run();
    expect(summary.files.added).toBe(Object.keys(CORPUS).length - SECRET_FILES.length);
    expect(markersIn(indexer.indexDir)).toEqual([]);

    const tool = new CodebaseSearchTool({ cwd: repo.root });
    try {
      const answers: string[] = [];
      for (const query of [
        'BillingClient send invoice',
        'GITHUB SLACK OPENAI keys',
        'load settings API_KEY',
        'Connect clientSecret',
        'API_TOKEN token',
        'Main secret',
        'auth_token config',
        'api_key yaml',
        'curl Authorization Bearer',
        'connectUpstream plainBlob',
        'staging database password replica',
        'RELEASE_KEY sign release signing key',
        'old signing key pasted',
        'SIGNUP_CODE',
        'hvs vault token',
        'vault login',
        'kubeconfig deployer client-key-data',
        'RELEASE_HOOK slack services',
        'openDatabase dbPass',
        'database user pass db_pass',
      ]) {
        answers.push(JSON.stringify(await tool.execute({ query, k: 10 })));
      }
      const text = answers.join('\n').toLowerCase();
      expect(MARKERS.filter((marker) => text.includes(marker))).toEqual([]);
      // The answers still show the code around the secrets.
      expect(text).toContain('[redacted]');
      expect(text).toContain('billingclient');
    } finally {
      await tool.close();
    }
  });
});
