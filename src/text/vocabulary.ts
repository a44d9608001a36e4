/**
 * What the built-in embedder knows about the words of code without a
 * model: which words say little (keywords, English glue) and which words
 * and abbreviations name the same idea (remove/delete/del, config/cfg).
 */
import { stem } from './terms.js';

/** Groups of words that name one idea; the first word names the group. */
const CONCEPT_GROUPS = [
  'remove delete del erase drop unlink destroy purge evict discard',
  'get fetch retrieve load read lookup obtain',
  'find search query lookup locate match',
  'create make build construct spawn generate produce instantiate',
  'initialize init setup bootstrap prepare',
  'save store write persist put commit flush dump',
  'update modify change edit patch mutate',
  'start begin launch run open boot',
  'stop end close finish terminate shutdown halt kill exit quit dispose',
  'error err exception fail failure fault throw panic',
  'config configuration conf cfg settings setting options opts option preferences prefs',
  'message msg',
  'request req',
  'response res resp reply',
  'database db sqlite sql',
  'function fn func callback handler',
  'parameter param params arg args argument',
  'property prop props attribute attr field',
  'directory dir folder',
  'authenticate auth authentication login signin credential password',
  'permission authorize authorization access role',
  'parse parser tokenize lex lexer',
  'render draw paint display',
  'validate validation verify check assert',
  'cache memo memoize',
  'count num number total',
  'string str text',
  'array arr list',
  'object obj',
  'length len size',
  'previous prev',
  'current cur curr',
  'context ctx',
  'environment env',
  'temporary tmp temp',
  'source src',
  'destination dest dst target',
  'image img picture',
  'button btn',
  'utility util utils helper',
  'document doc docs',
  'reference ref',
  'information info',
  'implementation impl',
  'maximum max',
  'minimum min',
  'index idx',
  'connection conn socket',
  'transaction txn tx',
  'synchronize sync',
  'asynchronous async',
  'generate gen',
  'allocate alloc',
  'calculate calc compute',
  'compare cmp',
  'convert conv transform',
  'copy clone duplicate',
  'event evt',
  'command cmd',
  'address addr',
  'buffer buf',
  'pointer ptr',
  'sequence seq',
  'statistics stats stat',
  'timestamp ts time date',
  'vector vec embedding',
  'listener observer subscriber watcher',
  'queue buffer backlog',
  'log logger logging trace',
];

/** Words of English that carry little meaning in a question or a comment. */
const ENGLISH_STOP_WORDS = (
  'the a an of to in on for is are be been was were and or not no with this that these those it its as by at from ' +
  'into than then there here if else when while do done will can may must should would could also only all each every some any'
).split(' ');

/**
 * Keywords of programming languages: noise in code, where every function
 * spells them, but words with a meaning in a question (`static content`,
 * `async handler`, `default value`, `case-insensitive`).
 */
const CODE_KEYWORDS = (
  'elif return returns const let var function def class export import default new true false null none undefined ' +
  'void self public private protected static readonly async await unknown type interface extends implements typeof ' +
  'instanceof yield break continue case switch try catch finally throw throws pass lambda from use'
).split(' ');

const conceptOf = new Map<string, string>();
for (const group of CONCEPT_GROUPS) {
  const members = group.split(' ');
  const name = stem(members[0]!);
  for (const member of members) if (!conceptOf.has(stem(member))) conceptOf.set(stem(member), name);
}

const englishStopStems = new Set(ENGLISH_STOP_WORDS.map(stem));
const stopStems = new Set([...ENGLISH_STOP_WORDS, ...CODE_KEYWORDS].map(stem));

/** The idea a stemmed word belongs to, if it is in a group. */
export function conceptFor(stemmed: string): string | undefined {
  return conceptOf.get(stemmed);
}

/** A word that carries little meaning in code or in prose: English function words and language keywords. */
export function isStopWord(stemmed: string): boolean {
  return stopStems.has(stemmed);
}

/**
 * An English function word: what a search leaves out of a question's terms.
 * A keyword typed in a question is kept, and weighed by how rare it is in
 * the index, as every other word is.
 */
export function isEnglishStopWord(stemmed: string): boolean {
  return englishStopStems.has(stemmed);
}
