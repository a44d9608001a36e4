#!/usr/bin/env node
import { evalMain } from './eval-command.js';
import { endQuietlyWhenOutputCloses, exitWith } from './program.js';

endQuietlyWhenOutputCloses();
exitWith(await evalMain(process.argv.slice(2)));
