/**
 * Issue 54, case 9: redaction runs on every file indexed and every snippet
 * shown, so gitleaks' rules are run fast (one keyword scan, semi-generic
 * rules searched from their core: files/keyword-scan.ts, files/lazy-prefix.ts)
 * and must find what running them plainly finds. bench/secret-rules.ts checks
 * the same on the benchmark corpora.
 */
import { describe, expect, it } from 'vitest';
import { KeywordScanner } from '../../src/files/keyword-scan.js';
import { lazyPrefixMatches } from '../../src/files/lazy-prefix.js';
import { findRuleSecrets, gitleaksRules } from '../../src/files/secret-rules.js';
import { SECRET_CASES } from '../fixtures/secrets/corpus.js';

/** Texts where a keyword and its rule's match lie apart, at a text's ends, in runs longer than a rule's reach. */
const EDGES = [
  'key',
  'api_key=',
  'x'.repeat(80) + '_api_key = "q8Zr3KfP0aLm9XwTgB7vN2cY"',
  'token:\n\n\n  "q8Zr3KfP0aLm9XwTgB7vN2cYd5"\nnext',
  'my.app-secret.value = Zq4Rn7Vx2Kp9Lm3Tw8Yc1Hb6 ; other_token = Tw8Yc1Hb6Gd5Fs0JeNa4Uo7W',
  'lob_key = live_4f7a9c2e1b8d3f6a0c5e9b2d7f1a4c8e123\n',
  'DEPLOY_TOKEN=Kp4Wn8Rz2Xc6Vb1Nm5Lq9Ts3Yh7Gd0F',
  'ToKeN = "Q8zR3kFp0AlM9xWtGb7Vn2Cy"',
  'co_api_key = "q8Zr3KfP0aLm9XwTgB7vN2cYd5Hs1JuE6oRi4Wkx"',
];

describe('gitleaks’ rules run indexed', () => {
  it('find what running every rule over the whole text finds, on the secret corpus and at the edges', () => {
    const rules = gitleaksRules(new Set());
    for (const text of [...SECRET_CASES.map((secretCase) => secretCase.text), ...EDGES]) {
      expect(findRuleSecrets(text, rules, 'indexed'), text).toEqual(findRuleSecrets(text, rules, 'plain'));
    }
  });
});

describe('KeywordScanner', () => {
  it('says what text.toLowerCase().includes says, for every keyword, whatever the case', () => {
    const keywords = ['key', 'ey', 'api_key', 'sk_live', 'k', 'kelvin'];
    const scanner = new KeywordScanner(keywords);
    const texts = ['', 'KEY', 'mY_aPi_KeY', 'sk_LIVE_x', 'e\u0130y', '\u212Aelvin', 'a\u0130', 'nothing here'];
    for (const text of texts) {
      const found = scanner.scan(text);
      for (const keyword of keywords)
        expect(found.has(keyword), `${keyword} in ${text}`).toBe(text.toLowerCase().includes(keyword));
    }
  });

  it('refuses a keyword that is not lower-case ASCII, and a keyword it did not scan for', () => {
    expect(() => new KeywordScanner(['Key'])).toThrow(/lower-case/);
    expect(() => new KeywordScanner(['key']).scan('key').has('token')).toThrow(/not scanned/);
  });
});

describe('lazyPrefixMatches', () => {
  /** A small, seeded generator of texts dense in run characters, keywords and operators. */
  function* texts(count: number): Generator<string> {
    let seed = 54;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pieces = ['a', 'b', '_', '.', '-', '$', ' ', '\n', 'key', 'pass', 'token', '=', ':', '"', 'x1', '9', 'Q'];
    for (let i = 0; i < count; i++) {
      let text = '';
      const length = 1 + Math.floor(random() * 60);
      for (let j = 0; j < length; j++) text += pieces[Math.floor(random() * pieces.length)];
      yield text;
    }
  }
  const inRun = (code: number) => /[\w.$-]/.test(String.fromCharCode(code));
  const cases = [
    { start: '[\\w.$-]{0,5}?', core: '(?:key|pass)[\\w-]*\\s*[=:]\\s*"?(\\w{2,})', reach: 5, wordBoundary: false },
    {
      start: '\\b[\\w.$-]*?',
      core: '(?:token|pass)[\\w$-]*\\s*=\\s*([\\w"]{2,})',
      reach: Infinity,
      wordBoundary: true,
    },
  ];

  it.each(cases)('finds what exec over the whole text finds: $start', ({ start, core, reach, wordBoundary }) => {
    const whole = new RegExp(start + core, 'gi');
    const search = {
      core: new RegExp(core, 'gi'),
      anchored: new RegExp(start + core, 'iy'),
      inRun,
      reach,
      wordBoundary,
    };
    for (const text of texts(3000)) {
      const plain = [...text.matchAll(whole)].map((match) => [match.index, ...match]);
      const fast = [...lazyPrefixMatches(search, text)].map((match) => [match.index, ...match]);
      expect(fast, JSON.stringify(text)).toEqual(plain);
    }
  });
});
