#!/usr/bin/env node
import { exitWith } from './program.js';
import { indexMain } from './index-command.js';

exitWith(await indexMain(process.argv.slice(2)));
