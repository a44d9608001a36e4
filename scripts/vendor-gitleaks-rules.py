#!/usr/bin/env python3
"""
Vendors gitleaks' default rules (config/gitleaks.toml, MIT, Copyright (c) 2019
Zachary Rice) as data that JavaScript can run: resources/secret-rules/gitleaks.json.

    python3 scripts/vendor-gitleaks-rules.py path/to/gitleaks.toml COMMIT > resources/secret-rules/gitleaks.json

Go's RE2 syntax is rewritten for JavaScript: the case-folding and dot-all flags
(leading, in the middle, scoped `(?i:...)`, turned off with `(?-i:...)`) are
written out as character classes, so no JavaScript flag is needed; `\\z` becomes
`$`, `[[:alnum:]]` a class, `(?P<name>` a named group. Rules that match file
paths only are left out: ocvector redacts text, and never reads credential files.
"""
import json
import sys
import tomllib

POSIX = {'alnum': 'a-zA-Z0-9', 'alpha': 'a-zA-Z', 'digit': '0-9', 'lower': 'a-z', 'upper': 'A-Z',
         'space': r'\s', 'xdigit': '0-9a-fA-F', 'word': r'\w', 'punct': r'!-/:-@\[-`{-~'}


def fold_class(items):
    """The items of a character class (single chars or ranges), with the other case of each letter added."""
    extra = []
    for lo, hi in items:
        if lo is None:
            continue
        if 'a' <= lo <= 'z' and 'a' <= hi <= 'z':
            extra.append((lo.upper(), hi.upper()))
        elif 'A' <= lo <= 'Z' and 'A' <= hi <= 'Z':
            extra.append((lo.lower(), hi.lower()))
    return extra


def convert(rx):
    out = []
    stack = []  # saved (ci, dotall) per open group
    ci = False
    dotall = False
    i = 0
    n = len(rx)
    while i < n:
        c = rx[i]
        if c == '\\':
            nxt = rx[i + 1]
            if nxt == 'z':
                out.append('$')
            elif nxt == 'A':
                out.append('^')
            elif nxt == 'Q' or (nxt in 'pP' and rx[i + 2:i + 3] == '{'):
                raise ValueError('unsupported escape in ' + rx)
            else:
                out.append(rx[i:i + 2])
            i += 2
            continue
        if c == '[':
            j = i + 1
            body = []
            items = []  # (lo, hi) for letters and ranges; (None, None) for escapes
            if j < n and rx[j] == '^':
                body.append('^')
                j += 1
            first = True
            while j < n and (rx[j] != ']' or first):
                first = False
                if rx.startswith('[:', j):
                    end = rx.index(':]', j)
                    body.append(POSIX[rx[j + 2:end]])
                    j = end + 2
                    continue
                if rx[j] == '\\':
                    body.append(rx[j:j + 2])
                    j += 2
                    continue
                if rx[j] == '[':
                    body.append('\\[')
                    j += 1
                    continue
                if j + 2 < n and rx[j + 1] == '-' and rx[j + 2] != ']':
                    lo, hi = rx[j], rx[j + 2]
                    if hi == '\\':
                        raise ValueError('escaped range end in ' + rx)
                    body.append(rx[j:j + 3])
                    items.append((lo, hi))
                    j += 3
                    continue
                body.append(rx[j])
                items.append((rx[j], rx[j]))
                j += 1
            if ci:  # the other case first: a class may end with a literal '-'
                at = 1 if body[:1] == ['^'] else 0
                body[at:at] = [lo if lo == hi else f'{lo}-{hi}' for lo, hi in fold_class(items)]
            out.append('[' + ''.join(body) + ']')
            i = j + 1
            continue
        if c == '(':
            stack.append((ci, dotall))
            if rx.startswith('(?P<', i):
                out.append('(?<')
                i += 4
                continue
            if rx.startswith('(?', i) and rx[i + 2] not in '<=!:':
                j = i + 2
                while rx[j] not in ':)':
                    j += 1
                flags = rx[i + 2:j]
                on, _, off = flags.partition('-')
                new_ci = (ci or 'i' in on) and 'i' not in off
                new_dotall = (dotall or 's' in on) and 's' not in off
                if set(on + off) - set('is'):
                    raise ValueError('unsupported flags in ' + rx)
                if rx[j] == ')':  # (?i) sets the flags until the enclosing group ends
                    stack.pop()
                    ci, dotall = new_ci, new_dotall
                    i = j + 1
                    continue
                ci, dotall = new_ci, new_dotall
                out.append('(?:')
                i = j + 1
                continue
            out.append('(')
            i += 1
            continue
        if c == ')':
            ci, dotall = stack.pop()
            out.append(')')
            i += 1
            continue
        if c == '.' and dotall:
            out.append(r'[\s\S]')
            i += 1
            continue
        if c == '{':
            end = rx.find('}', i)
            out.append(rx[i:end + 1])  # a repetition count: no letters to fold
            i = end + 1
            continue
        if ci and c.isascii() and c.isalpha():
            out.append(f'[{c.lower()}{c.upper()}]')
            i += 1
            continue
        out.append(c)
        i += 1
    return ''.join(out)


def allow(a):
    return {k: v for k, v in {
        'regexTarget': a.get('regexTarget', 'secret'),
        'condition': a.get('condition', 'OR').upper(),
        'regexes': [convert(r) for r in a.get('regexes', [])],
        'stopwords': [s.lower() for s in a.get('stopwords', [])],
    }.items() if v}


def main():
    path, commit = sys.argv[1], sys.argv[2]
    config = tomllib.load(open(path, 'rb'))
    rules = []
    for r in config['rules']:
        if 'regex' not in r or 'path' in r:
            continue
        rule = {'id': r['id'], 'regex': convert(r['regex']), 'keywords': [k.lower() for k in r.get('keywords', [])]}
        if r.get('secretGroup'):
            rule['secretGroup'] = r['secretGroup']
        if r.get('entropy'):
            rule['entropy'] = r['entropy']
        allows = [allow(a) for a in r.get('allowlists', [])]
        if allows:
            rule['allowlists'] = allows
        rules.append(rule)
    doc = {
        'source': 'https://github.com/gitleaks/gitleaks/blob/' + commit + '/config/gitleaks.toml',
        'license': 'MIT License, Copyright (c) 2019 Zachary Rice',
        'converted': 'by scripts/vendor-gitleaks-rules.py (RE2 flags written out for JavaScript)',
        'allowlist': allow(config['allowlist']),
        'rules': rules,
    }
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write('\n')


main()
