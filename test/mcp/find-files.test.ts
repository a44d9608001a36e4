/**
 * find_files_to_change over MCP: listed read-only with the agent tool's
 * schemas, answering an issue as JSON (text and structured content alike),
 * a line in the log, and a token limited to some repositories kept to them
 * as codebase_search and find_references are. In process, over the SDK's
 * in-memory transport.
 */
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer, type FindFilesOutput } from '../../src/index.js';
import type { McpAccess } from '../../src/mcp/access.js';
import { createCodebaseMcpService, type CodebaseMcpService } from '../../src/mcp/server.js';
import { FIND_FILES_OUTPUT } from '../../src/tool/files-schema.js';
import { connectInMemory } from '../helpers/mcp-memory.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';

const validateOutput = new Ajv({ allErrors: true }).compile(FIND_FILES_OUTPUT);

const ISSUE = `monthlySalary is off for part-time staff

TypeError: Cannot read properties of undefined (reading 'hours')
    at monthlySalary (/srv/payroll/salaries/compute.ts:3:10)`;

const BILLING_ONLY: McpAccess = { name: 'billing-team', repos: ['billing'], write: false };

let payroll: TempRepo;
let billing: TempRepo;
let scratch: TempRepo;
let service: CodebaseMcpService;
const lines: string[] = [];

beforeAll(async () => {
  payroll = tempRepo({
    'salaries/compute.ts':
      '/** Computes the monthly salary of an employee. */\nexport function monthlySalary(employee: { yearly: number; hours: number }): number {\n  return (employee.yearly / 12) * (employee.hours / 40);\n}\n',
    'salaries/run.ts':
      "import { monthlySalary } from './compute';\n\nexport function runPayroll(staff: { yearly: number; hours: number }[]): number[] {\n  return staff.map(monthlySalary);\n}\n",
    'salaries/holidays.ts': '/** Days off in a year. */\nexport const HOLIDAYS = 25;\n',
  });
  billing = tempRepo({
    'orders/invoice.ts':
      '/** Issues an invoice for a paid order: the monthly total of its lines. */\nexport function issueInvoice(orderId: string): string {\n  return "invoice " + orderId;\n}\n',
  });
  scratch = tempRepo();
  const indexDir = join(scratch.root, 'index');
  for (const [repo, name] of [
    [payroll, 'payroll'],
    [billing, 'billing'],
  ] as const)
    await new Indexer({ path: repo.root, indexDir, repo: name, embedder: 'builtin', llm: false }).run();
  service = createCodebaseMcpService({
    root: payroll.root,
    indexDir,
    indexer: { llm: false, embedder: 'builtin' },
    onLog: (line) => lines.push(line),
  });
}, 120_000);

afterAll(async () => {
  await service?.close();
  for (const repo of [payroll, billing, scratch]) repo?.cleanup();
});

async function callFiles(
  client: Client,
  args: Record<string, unknown>,
): Promise<{ output: FindFilesOutput; text: string; isError: boolean }> {
  const result = (await client.callTool({ name: 'find_files_to_change', arguments: args })) as {
    isError?: boolean;
    content: { type: string; text: string }[];
    structuredContent: unknown;
  };
  return {
    output: result.structuredContent as FindFilesOutput,
    text: result.content[0]!.text,
    isError: result.isError ?? false,
  };
}

describe('find_files_to_change over MCP', () => {
  it('is listed read-only, with the agent tool’s schemas', async () => {
    const client = await connectInMemory(service.connect());
    try {
      const { tools } = await client.listTools();
      const files = tools.find((tool) => tool.name === 'find_files_to_change');
      expect(files).toBeDefined();
      expect(files!.inputSchema).toMatchObject({
        required: ['issue'],
        properties: { issue: { type: 'string', maxLength: 100_000 }, limit: { maximum: 50 }, repos: { type: 'array' } },
      });
      expect(files!.outputSchema).toMatchObject({ required: ['files', 'fallback_used'] });
      expect(files!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
      expect(files!.description).toMatch(/issue/);
    } finally {
      await client.close();
    }
  });

  it('answers an issue as JSON: the file the traceback fails in first, with its evidence', async () => {
    const client = await connectInMemory(service.connect());
    try {
      lines.length = 0;
      const { output, text, isError } = await callFiles(client, { issue: ISSUE, limit: 5 });
      expect(isError).toBe(false);
      expect(JSON.parse(text)).toEqual(output);
      expect(validateOutput(output), JSON.stringify(validateOutput.errors)).toBe(true);
      expect(output.files[0]).toMatchObject({ repo: 'payroll', path: 'salaries/compute.ts' });
      expect(output.files[0]!.evidence.map((evidence) => evidence.kind)).toEqual(
        expect.arrayContaining(['frame', 'defines']),
      );
      expect(lines).toEqual([
        expect.stringMatching(
          /^find_files_to_change "monthlySalary is off for part-time staff\\n.*: \d+ files \(\d+ ms\)$/,
        ),
      ]);

      const bad = await callFiles(client, { issue: ISSUE, limit: 0 });
      expect(bad.isError).toBe(true);
      expect(bad.output).toMatchObject({ files: [], fallback_used: false, error: expect.stringMatching(/limit/) });
    } finally {
      await client.close();
    }
  });

  it('keeps a token limited to some repositories to its own', async () => {
    const client = await connectInMemory(service.connect(BILLING_ONLY));
    try {
      const { output, isError } = await callFiles(client, { issue: ISSUE });
      expect(isError).toBe(false);
      expect(output.files.every((file) => file.repo === 'billing')).toBe(true);
      expect(JSON.stringify(output)).not.toContain('payroll');
      const elsewhere = await callFiles(client, { issue: ISSUE, repos: ['payroll'] });
      expect(elsewhere.isError).toBe(true);
      expect(elsewhere.output.error).toMatch(/^invalid arguments: .*payroll/);
      expect(elsewhere.output.files).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
