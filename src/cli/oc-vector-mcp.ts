#!/usr/bin/env node
import { mcpMain } from './mcp-command.js';
import { endQuietlyWhenOutputCloses, exitWith } from './program.js';

endQuietlyWhenOutputCloses();
exitWith(await mcpMain(process.argv.slice(2)));
