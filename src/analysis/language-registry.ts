/**
 * Every language the index knows, in one list: a language is its record
 * (languages/<name>.ts: its names and how it is analysed) and one line here.
 * The Language type is derived from this list, and everything that names
 * languages reads it: file detection and filters (language-names.ts), how
 * files are analysed (languages.ts), the CLIs' `--lang` choices and the
 * agent tool's schema. The order is the order users see (CLI help, the
 * tool's enum).
 */
import { bash } from './languages/bash.js';
import { c } from './languages/c.js';
import { cpp } from './languages/cpp.js';
import { csharp } from './languages/csharp.js';
import { elixir } from './languages/elixir.js';
import { go } from './languages/go.js';
import { haskell } from './languages/haskell.js';
import { java } from './languages/java.js';
import { javascript } from './languages/javascript.js';
import { json } from './languages/json.js';
import { kotlin } from './languages/kotlin.js';
import { lua } from './languages/lua.js';
import { markdown } from './languages/markdown.js';
import { php } from './languages/php.js';
import { python } from './languages/python.js';
import { ruby } from './languages/ruby.js';
import { rust } from './languages/rust.js';
import { scala } from './languages/scala.js';
import { swift } from './languages/swift.js';
import { text } from './languages/text.js';
import { toml } from './languages/toml.js';
import { tsx } from './languages/tsx.js';
import { typescript } from './languages/typescript.js';
import { yaml } from './languages/yaml.js';
import { zig } from './languages/zig.js';

export const LANGUAGE_RECORDS = [
  typescript,
  tsx,
  javascript,
  python,
  go,
  rust,
  java,
  c,
  cpp,
  csharp,
  ruby,
  php,
  kotlin,
  swift,
  scala,
  bash,
  lua,
  elixir,
  haskell,
  zig,
  markdown,
  json,
  yaml,
  toml,
  text,
] as const;

/** A language as the index names it. */
export type Language = (typeof LANGUAGE_RECORDS)[number]['name'];
