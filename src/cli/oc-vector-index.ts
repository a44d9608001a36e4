#!/usr/bin/env node
import { endQuietlyWhenOutputCloses, exitWith } from './program.js';
import { indexMain } from './index-command.js';

endQuietlyWhenOutputCloses();
exitWith(await indexMain(process.argv.slice(2)));
