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

/** Words that carry little meaning in code or prose. */
const STOP_WORDS = (
  'the a an of to in on for is are be been was were and or not no with this that these those it its as by at from ' +
  'into than then there here if else elif when while do done return returns const let var function def class export ' +
  'import default new true false null none undefined void self public private protected static readonly async await ' +
  'any unknown type interface extends implements typeof instanceof yield break continue case switch try catch ' +
  'finally throw throws pass lambda from use will can may must should would could also only all each every some'
).split(' ');

const conceptOf = new Map<string, string>();
for (const group of CONCEPT_GROUPS) {
  const members = group.split(' ');
  const name = stem(members[0]!);
  for (const member of members) if (!conceptOf.has(stem(member))) conceptOf.set(stem(member), name);
}

const stopStems = new Set(STOP_WORDS.map(stem));

/** The idea a stemmed word belongs to, if it is in a group. */
export function conceptFor(stemmed: string): string | undefined {
  return conceptOf.get(stemmed);
}

export function isStopWord(stemmed: string): boolean {
  return stopStems.has(stemmed);
}
