#!/usr/bin/env node
import { mcpMain } from './mcp-command.js';
import { exitWith } from './program.js';

exitWith(await mcpMain(process.argv.slice(2)));
