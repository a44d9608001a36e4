/**
 * A tool in the shapes agent APIs expect, and the way back: a model's tool
 * call (in any of those shapes) dispatched to `execute`, with its answer
 * ready to append to the conversation.
 */
import type { AgentTool } from './codebase-search-tool.js';

/** Ollama's and OpenAI's function tools (the same shape). */
export interface FunctionToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: object };
}

export interface AnthropicToolDefinition {
  name: string;
  description: string;
  input_schema: object;
}

export function toOllamaTool(tool: AgentTool): FunctionToolDefinition {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

export function toOpenAITool(tool: AgentTool): FunctionToolDefinition {
  return toOllamaTool(tool);
}

export function toAnthropicTool(tool: AgentTool): AnthropicToolDefinition {
  return { name: tool.name, description: tool.description, input_schema: tool.parameters };
}

/**
 * A model's tool call: Ollama's `{function: {name, arguments: {...}}}`,
 * OpenAI's `{id, type: 'function', function: {name, arguments: '<json>'}}`,
 * or Anthropic's `{type: 'tool_use', id, name, input}`.
 */
export type ToolCallRequest =
  | { id?: string; type?: 'function'; function: { name: string; arguments: Record<string, unknown> | string } }
  | { type: 'tool_use'; id: string; name: string; input: unknown };

export interface ToolCallResult {
  /** The call's id (OpenAI, Anthropic), to pair the answer with it. */
  id?: string;
  name: string;
  /** What the tool answered (or an `{error}` object when the call could not be made). */
  output: unknown;
  /** The output as JSON text, for the conversation. */
  content: string;
  isError: boolean;
}

/** Runs the tool a model asked for. Never throws: an unknown tool or malformed call is an error answer the model can read. */
export async function dispatchToolCall(
  tools: AgentTool | readonly AgentTool[],
  call: unknown,
): Promise<ToolCallResult> {
  const available = Array.isArray(tools) ? (tools as readonly AgentTool[]) : [tools as AgentTool];
  const parsed = parseCall(call);
  const answer = (output: unknown): ToolCallResult => ({
    ...(parsed.id ? { id: parsed.id } : {}),
    name: parsed.name,
    output,
    content: JSON.stringify(output),
    isError: isErrorOutput(output),
  });
  if (parsed.error) return answer({ error: parsed.error });
  const tool = available.find((candidate) => candidate.name === parsed.name);
  if (!tool)
    return answer({ error: `unknown tool "${parsed.name}"; available: ${available.map((t) => t.name).join(', ')}` });
  try {
    return answer(await tool.execute(parsed.args));
  } catch (error) {
    return answer({ error: `${tool.name} failed: ${(error as Error).message}` });
  }
}

/** Ollama's tool message for a result. */
export function ollamaToolMessage(result: ToolCallResult): { role: 'tool'; tool_name: string; content: string } {
  return { role: 'tool', tool_name: result.name, content: result.content };
}

/** OpenAI's tool message for a result. */
export function openAIToolMessage(result: ToolCallResult): { role: 'tool'; tool_call_id: string; content: string } {
  return { role: 'tool', tool_call_id: result.id ?? '', content: result.content };
}

/** Anthropic's tool_result content block for a result. */
export function anthropicToolResult(result: ToolCallResult): {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  is_error: boolean;
} {
  return { type: 'tool_result', tool_use_id: result.id ?? '', content: result.content, is_error: result.isError };
}

interface ParsedCall {
  id?: string;
  name: string;
  args?: unknown;
  error?: string;
}

function parseCall(call: unknown): ParsedCall {
  if (typeof call !== 'object' || call === null) return { name: '', error: 'a tool call must be an object' };
  const c = call as Record<string, unknown>;
  const id = typeof c.id === 'string' ? c.id : undefined;
  const withId = (parsed: ParsedCall): ParsedCall => (id ? { id, ...parsed } : parsed);
  if (c.type === 'tool_use') {
    return withId(
      typeof c.name === 'string'
        ? { name: c.name, args: c.input }
        : { name: '', error: 'a tool_use block has no name' },
    );
  }
  const fn = c.function as Record<string, unknown> | undefined;
  if (typeof fn !== 'object' || fn === null || typeof fn.name !== 'string')
    return withId({ name: '', error: 'a tool call needs function.name' });
  if (typeof fn.arguments !== 'string') return withId({ name: fn.name, args: fn.arguments ?? {} });
  // OpenAI sends the arguments as JSON text, which a model may get wrong.
  try {
    return withId({ name: fn.name, args: fn.arguments.trim() === '' ? {} : JSON.parse(fn.arguments) });
  } catch (error) {
    return withId({ name: fn.name, error: `the arguments are not valid JSON (${(error as Error).message})` });
  }
}

function isErrorOutput(output: unknown): boolean {
  return typeof output === 'object' && output !== null && typeof (output as { error?: unknown }).error === 'string';
}
