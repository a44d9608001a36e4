/**
 * An Ollama `/api/embed` endpoint that lets a whole benchmark run use a real embedding model
 * whose vectors were computed elsewhere: on this 2-core machine all-MiniLM-L6-v2 embeds 3 to 6
 * element documents a second, so the development split's 135,000 elements would take most of a
 * day; a lent GPU machine computes them in a minute, but has no network and cannot run this
 * repository's indexing. The run is therefore made twice, through this relay:
 *
 *   1. `record`: indexing and searching run as usual against the relay, which writes down every
 *      text ocvector asks to embed (documents and queries, as sent: prefixes and the embedder's
 *      own cut applied) and answers with placeholder vectors.
 *   2. The texts are embedded by the real model elsewhere (eval/gpu/embed-texts.py, with the same
 *      weights that `npm run models` imports into Ollama).
 *   3. `replay`: the run again, from nothing, with the relay answering each text with its real
 *      vector; a text it was not given is an error, so nothing is silently made up.
 *
 *   npx tsx eval/embedding-relay.ts record --texts <file.jsonl> [--dimension 384] [--port N]
 *   npx tsx eval/embedding-relay.ts replay --texts <file.jsonl> --vectors <dir> [--port N]
 *
 * It prints `OLLAMA_HOST=http://127.0.0.1:<port>` and serves until stopped. `--vectors` is the
 * folder embed-texts.py writes: `vectors-<k>.i8` (int8 rows, one per text, in the texts' order)
 * and `scales.f32` (each row's scale: the row is int8 × scale; unit rows lose < 1e-4 of cosine).
 */
import { createHash } from 'node:crypto';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    texts: { type: 'string' },
    vectors: { type: 'string' },
    dimension: { type: 'string', default: '384' },
    port: { type: 'string', default: '0' },
  },
});

const fail = (message: string): never => {
  process.stderr.write(`embedding-relay: ${message}\n`);
  process.exit(2);
};

const mode = positionals[0];
if (mode !== 'record' && mode !== 'replay') fail('the first argument is record or replay');
const textsFile = values.texts ?? fail('--texts <file.jsonl> is required');

const digest = (text: string) => createHash('sha256').update(text).digest('base64');

/** Each known text's digest and its row: the texts file's lines, in order. */
const rows = new Map<string, number>();
function loadTexts(): void {
  let content = '';
  try {
    content = readFileSync(textsFile, 'utf8');
  } catch {
    return; // record: a new file
  }
  for (const line of content.split('\n')) if (line) rows.set(digest(JSON.parse(line) as string), rows.size);
}
loadTexts();

/** replay: every row's vector, dequantised. */
let table: Float32Array | undefined;
let dimension = Number(values.dimension);
if (mode === 'replay') {
  const dir = values.vectors ?? fail('replay needs --vectors <dir>');
  const scales = new Float32Array(readFileSync(join(dir, 'scales.f32')).buffer.slice(0));
  if (scales.length !== rows.size) fail(`${dir} has ${scales.length} rows, ${textsFile} ${rows.size} texts`);
  const parts = readdirSync(dir)
    .filter((name) => /^vectors-\d+\.i8$/.test(name))
    .sort((a, b) => Number(a.slice(8, -3)) - Number(b.slice(8, -3)));
  const bytes = Buffer.concat(parts.map((name) => readFileSync(join(dir, name))));
  dimension = bytes.length / scales.length;
  if (!Number.isInteger(dimension)) fail(`${dir}: ${bytes.length} bytes is not ${scales.length} whole rows`);
  const quantised = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  table = new Float32Array(bytes.length);
  for (let row = 0; row < scales.length; row++)
    for (let i = 0; i < dimension; i++) table[row * dimension + i] = quantised[row * dimension + i]! * scales[row]!;
}

/** record: a placeholder vector for a text, the same each time (so an index stays consistent). */
function placeholder(text: string): number[] {
  const seed = createHash('sha256').update(text).digest();
  return Array.from({ length: dimension }, (_, i) => (seed[i % seed.length]! - 127.5) / 128 + i / dimension);
}

function vectorOf(text: string): number[] {
  const key = digest(text);
  const row = rows.get(key);
  if (mode === 'record') {
    if (row === undefined) {
      rows.set(key, rows.size);
      appendFileSync(textsFile, `${JSON.stringify(text)}\n`);
    }
    return placeholder(text);
  }
  if (row === undefined)
    throw new Error(`no vector for a text of ${text.length} characters: ${JSON.stringify(text.slice(0, 80))}`);
  return Array.from(table!.subarray(row * dimension, (row + 1) * dimension));
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
}

const server = createServer((request, response) => {
  void (async () => {
    try {
      const body = (await readBody(request)) as { model?: string; input?: string | string[] };
      if (request.url === '/api/tags')
        return reply(response, 200, { models: [{ name: 'relay', model: 'relay', size: 1 }] });
      if (request.url !== '/api/embed') return reply(response, 404, { error: `no route ${request.url}` });
      const input = [body.input ?? []].flat();
      reply(response, 200, { model: body.model, embeddings: input.map(vectorOf) });
    } catch (error) {
      reply(response, 500, { error: (error as Error).message });
    }
  })();
});
server.listen(Number(values.port), '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`OLLAMA_HOST=http://127.0.0.1:${port}\n`);
  process.stderr.write(`embedding-relay: ${mode}, ${rows.size} texts known\n`);
});
