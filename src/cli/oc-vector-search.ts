#!/usr/bin/env node
import { exitWith } from './program.js';
import { searchMain } from './search-command.js';

exitWith(await searchMain(process.argv.slice(2)));
