#!/usr/bin/env node
import { evalMain } from './eval-command.js';
import { exitWith } from './program.js';

exitWith(await evalMain(process.argv.slice(2)));
