/** Temporary repositories for indexing tests: real files, optionally a git work tree. */
import { afterEach } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { IndexEvent } from '../../src/indexing/events.js';

export interface TempRepo {
  root: string;
  write(path: string, content: string | Uint8Array): void;
  remove(path: string): void;
  git(...args: string[]): string;
  /** Moves every file's mtime into the past, as for a repository checked out a while ago. */
  age(): void;
  cleanup(): void;
}

export function tempRepo(files: Record<string, string | Uint8Array> = {}, options: { git?: boolean } = {}): TempRepo {
  const root = mkdtempSync(join(tmpdir(), 'ocvector-repo-'));
  const repo: TempRepo = {
    root,
    write(path, content) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    },
    remove(path) {
      rmSync(join(root, path), { force: true });
    },
    git(...args) {
      return execFileSync(
        'git',
        ['-C', root, '-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args],
        { encoding: 'utf8' },
      );
    },
    age() {
      const past = new Date(Date.now() - 60_000);
      for (const path of Object.keys(files)) {
        try {
          utimesSync(join(root, path), past, past);
        } catch {
          // removed since
        }
      }
    },
    cleanup() {
      rmSync(root, { recursive: true, force: true });
    },
  };
  for (const [path, content] of Object.entries(files)) repo.write(path, content);
  if (options.git) {
    repo.git('init', '-q', '-b', 'main');
    repo.git('add', '-A');
    repo.git('commit', '-q', '-m', 'initial');
  }
  return repo;
}

/** Collects events by type. */
export function eventLog(): {
  events: IndexEvent[];
  onEvent: (event: IndexEvent) => void;
  of<T extends IndexEvent['type']>(type: T): Extract<IndexEvent, { type: T }>[];
} {
  const events: IndexEvent[] = [];
  return {
    events,
    onEvent: (event) => events.push(event),
    of: (type) => events.filter((event) => event.type === type) as never,
  };
}

/** A small TypeScript codebase with classes, functions and docs. */
export const SAMPLE_FILES: Record<string, string> = {
  'src/users.ts': `/** Users of the service, kept in memory. */
export interface User {
  id: number;
  name: string;
}

/** Stores users and finds them by id. */
export class UserRepository {
  private readonly users = new Map<number, User>();

  /** Returns the user with this id, if any. */
  getUserById(id: number): User | undefined {
    return this.users.get(id);
  }

  /** Adds or replaces a user. */
  saveUser(user: User): void {
    this.users.set(user.id, user);
  }

  /** Deletes a user; true when one was removed. */
  removeUser(id: number): boolean {
    return this.users.delete(id);
  }
}
`,
  'src/math.ts': `/** Adds two numbers. */
export function add(a: number, b: number): number {
  return a + b;
}

/** The greatest common divisor, by Euclid's algorithm. */
export function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}
`,
  'src/http/server.ts': `import { createServer } from 'node:http';

/** Starts an HTTP server that answers every request with a greeting. */
export function startGreetingServer(port: number) {
  return createServer((request, response) => {
    response.end('hello');
  }).listen(port);
}
`,
  'scripts/report.py': `"""Prints a summary of the test results."""


def summarize(results):
    """Counts passed and failed results."""
    passed = sum(1 for r in results if r.ok)
    return passed, len(results) - passed
`,
  'README.md': `# Sample

A sample project for the indexer tests.

## Usage

Run the greeting server and ask it for users.
`,
};

/** Temporary repositories and fake servers a test creates, removed after each test. */
export function cleanedUpAfterEach(): { repo?: TempRepo; fake?: { close(): Promise<void> } } {
  const owned: { repo?: TempRepo; fake?: { close(): Promise<void> } } = {};
  afterEach(async () => {
    owned.repo?.cleanup();
    await owned.fake?.close();
    delete owned.repo;
    delete owned.fake;
  });
  return owned;
}
