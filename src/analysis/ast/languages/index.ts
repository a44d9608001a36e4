/** The generic extractor's table for each language that has no extractor of its own. */
import type { Language } from '../../types.js';
import type { GenericLanguage } from '../generic/spec.js';
import { go } from './go.js';

export const GENERIC_LANGUAGES: Partial<Record<Language, GenericLanguage>> = {
  go,
};
