/** Bash (and sh, zsh scripts): functions, read-only variables as constants; the commands a function runs, and the files it sources. */
import { defineLanguage } from '../language-record.js';

export const bash = defineLanguage({
  name: 'bash',
  extensions: ['.sh', '.bash', '.zsh', '.ksh', '.bats', '.command'],
  fileNames: [
    '.bashrc',
    '.bash_profile',
    '.bash_logout',
    '.profile',
    '.zshrc',
    '.zprofile',
    '.zshenv',
    'PKGBUILD',
    'APKBUILD',
  ],
  interpreters: ['bash', 'sh', 'zsh', 'ksh', 'dash', 'ash', 'bats'],
  aliases: ['sh', 'shell', 'zsh', 'shellscript'],
  analysis: {
    kind: 'code',
    grammar: { package: 'tree-sitter-bash' },
    callTypes: ['command'],
    table: {
      comments: { line: ['#'] },
      defaultAccess: 'public',
      query: `
(function_definition name: (word) @name) @definition.function
(declaration_command "readonly" (variable_assignment name: (variable_name) @name)) @definition.constant

(command name: (command_name) @reference.calls)
(program (command name: (command_name) @_source (#match? @_source "^(source|\\\\.)$") argument: (_) @import))
`,
    },
  },
});
