#!/usr/bin/env node
import { endQuietlyWhenOutputCloses, exitWith } from './program.js';
import { searchMain } from './search-command.js';

endQuietlyWhenOutputCloses();
exitWith(await searchMain(process.argv.slice(2)));
