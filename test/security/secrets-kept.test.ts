/**
 * Issue 54, case 9: what the rules added for the corpus's shapes
 * (files/credential-contexts.ts, `pw` and URL passwords in redact.ts) leave
 * alone: references to a secret, placeholders and prose near the same words.
 * Every redaction of real code costs search quality.
 */
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/files/redact.js';

const KEPT = [
  'PGPASSWORD=$PGPASSWORD pg_dump -h db app',
  'mysql -p app < dump.sql',
  'mysql -h db -u root -p"$MYSQL_PWD" app',
  'acme login --client-secret "$CLIENT_SECRET"',
  'acme login --token <token>',
  'docker login --password-stdin < pw.txt',
  'az login --service-principal -u "$SP" -p "$SP_SECRET"',
  'url = f"jdbc:mysql://db/app?user={user}&password={password}"',
  `conn = "Server=db;Password=\${DB_PASSWORD};"`,
  `<password>\${env.NEXUS_PASSWORD}</password>`,
  '<token>TOKEN</token>',
  'The machine learning team can login with password reset links.',
  'await client.login(user="admin", pw="s3cr3t")',
  'pwm_channel = "pwm-12345678"',
  'tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSURYVENDQWtXZ0F3SUJBZ0lKQUtMZE',
  'const url = "https://example.com:8443/path?sig=abc";',
  'time: 12:30:45:00:99',
  'see https://user@example.com/docs',
];

describe('the context rules', () => {
  it.each(KEPT)('leave %s', (line) => {
    expect(redactSecrets(line)).toBe(line);
  });

  it('take the password only, and keep what says what it was', () => {
    const cases: [string, string][] = [
      ['PGPASSWORD=Pg-Env-2291 pg_dump app', 'PGPASSWORD=[redacted] pg_dump app'],
      [
        'jdbc:mysql://db/app?user=app&password=Jdbc-Pw-73mQ&ssl=true',
        'jdbc:mysql://db/app?user=app&password=[redacted]&ssl=true',
      ],
      ['<password>Xml-Pa55word-39</password>', '<password>[redacted]</password>'],
      ['postgres://app:p@ss@w0rd-19@db.internal:5432/app', 'postgres://app:[redacted]@db.internal:5432/app'],
      ['redis://:R3dis-Pa55@cache:6379/0', 'redis://:[redacted]@cache:6379/0'],
      ['admin_pw = "Tf-Admin-Pw-615"', 'admin_pw = "[redacted]"'],
    ];
    for (const [input, expected] of cases) expect(redactSecrets(input), input).toBe(expected);
  });
});
