// A minimal agent: an Ollama chat model that answers a question about the
// code by calling codebase_search, as many times as it needs, then replies.
// Index the code first (npx oc-vector-index .), then:
//
//   npm run example:agent -- "How are search results ranked?" [--model qwen2.5-coder] [--dir path]
//
// --dir: where to look for the index (default: the directory npm was run from).
// It talks to OLLAMA_HOST (default http://127.0.0.1:11434) and needs a model
// that supports tool calling (qwen2.5-coder, llama3.1, mistral-nemo...).
import { parseArgs } from 'node:util';
import { Ollama, type Message } from 'ollama';
import {
  CodebaseSearchTool,
  dispatchToolCall,
  ollamaHasModel,
  ollamaToolMessage,
  resolveOllamaHost,
  toOllamaTool,
  type CodebaseSearchOutput,
} from 'ocvector';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    model: { type: 'string', default: process.env.OCVECTOR_AGENT_MODEL ?? 'qwen2.5-coder' },
    dir: { type: 'string', default: process.env.INIT_CWD ?? '.' },
  },
});
const question =
  positionals.join(' ') || 'Where is the vector index written to disk, and how is it kept safe from crashes?';
const model = values.model;
const host = resolveOllamaHost(process.env.OLLAMA_HOST);

/** Tool rounds before the model must answer with what it has. */
const MAX_TOOL_ROUNDS = 4;

const SYSTEM = [
  'You answer questions about a codebase.',
  'Call codebase_search to find the relevant code before you answer, and search again with other words if the first results do not answer the question.',
  'Answer briefly, and cite the file paths and line numbers you used. If the code does not answer the question, say so.',
].join(' ');

if (!(await ollamaHasModel(host, model))) {
  process.stderr.write(
    `no model ${model} at ${host}: start Ollama and run \`ollama pull ${model}\`, or name another model with --model\n`,
  );
  process.exit(1);
}

const ollama = new Ollama({ host });
const tool = new CodebaseSearchTool({ cwd: values.dir, searcherOptions: { ollama: { host } } });
const tools = [toOllamaTool(tool)];
const messages: Message[] = [
  { role: 'system', content: SYSTEM },
  { role: 'user', content: question },
];

try {
  for (let round = 0; ; round++) {
    // After the last round of tools, the model answers without them.
    const offerTools = round < MAX_TOOL_ROUNDS;
    const { message } = await ollama.chat({
      model,
      messages,
      ...(offerTools ? { tools } : {}),
      options: { temperature: 0 },
    });
    messages.push(message);
    const calls = offerTools ? (message.tool_calls ?? []) : [];
    if (calls.length === 0) {
      console.log(message.content.trim());
      break;
    }
    for (const call of calls) {
      process.stderr.write(`→ ${call.function.name} ${JSON.stringify(call.function.arguments)}\n`);
      const result = await dispatchToolCall(tool, call);
      const output = result.output as Partial<CodebaseSearchOutput>;
      process.stderr.write(
        `← ${output.error ?? `${output.results?.length ?? 0} results${output.results?.[0] ? `, first ${output.results[0].path}:${output.results[0].start_line} ${output.results[0].name}` : ''}`}\n`,
      );
      messages.push(ollamaToolMessage(result));
    }
  }
} catch (error) {
  process.stderr.write(`the model server failed: ${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await tool.close();
}
