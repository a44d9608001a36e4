/** Bash (and sh, zsh scripts): functions, read-only variables as constants; the commands a function runs, and the files it sources. */
import type { GenericLanguage } from '../generic/spec.js';

export const bash: GenericLanguage = {
  comments: { line: ['#'] },
  defaultAccess: 'public',
  query: `
(function_definition name: (word) @name) @definition.function
(declaration_command "readonly" (variable_assignment name: (variable_name) @name)) @definition.constant

(command name: (command_name) @reference.calls)
(program (command name: (command_name) @_source (#match? @_source "^(source|\\\\.)$") argument: (_) @import))
`,
};
