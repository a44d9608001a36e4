/** The generic extractor's table for each language that has no extractor of its own. */
import type { Language } from '../../types.js';
import type { GenericLanguage } from '../generic/spec.js';
import { bash } from './bash.js';
import { c } from './c.js';
import { cpp } from './cpp.js';
import { csharp } from './csharp.js';
import { elixir } from './elixir.js';
import { go } from './go.js';
import { haskell } from './haskell.js';
import { java } from './java.js';
import { kotlin } from './kotlin.js';
import { lua } from './lua.js';
import { php } from './php.js';
import { ruby } from './ruby.js';
import { rust } from './rust.js';
import { scala } from './scala.js';
import { swift } from './swift.js';
import { zig } from './zig.js';

export const GENERIC_LANGUAGES: Partial<Record<Language, GenericLanguage>> = {
  bash,
  c,
  cpp,
  csharp,
  elixir,
  go,
  haskell,
  java,
  kotlin,
  lua,
  php,
  ruby,
  rust,
  scala,
  swift,
  zig,
};
