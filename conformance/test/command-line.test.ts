import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { CommandLineError, displayStdioCommand, parseStdioCommand, splitCommandLine } from '../src/command-line.js';

describe('splitCommandLine', () => {
  it.each([
    ['node server.js', ['node', 'server.js']],
    ['  node   server.js  ', ['node', 'server.js']],
    ['node "my server.js" --name \'a b\'', ['node', 'my server.js', '--name', 'a b']],
    ['echo "say \\"hi\\"" \'it\'"s"', ['echo', 'say "hi"', 'its']],
    ["printf 'no $expansion \\n here'", ['printf', 'no $expansion \\n here']],
    ['a\\ b c', ['a b', 'c']],
    ['run "" \'\' x', ['run', '', '', 'x']],
    ['"C:\\\\Program Files\\\\node" x', ['C:\\Program Files\\node', 'x']],
    ['say "keep \\n backslash"', ['say', 'keep \\n backslash']],
    ['one \\\ntwo', ['one', 'two']],
    ['pre"mid"post', ['premidpost']],
    ['', []],
    ['node --flag=\\$HOME "\\$PATH" \'$x\'', ['node', '--flag=$HOME', '$PATH', '$x']],
    ['node "a|b" \\; \'*.js\' "x#y"', ['node', 'a|b', ';', '*.js', 'x#y']],
  ])('splits %j', (line, words) => {
    expect(splitCommandLine(line)).toEqual(words);
  });

  it.each([
    ['node "open', 'unterminated double quote at position 5'],
    ["node 'open", 'unterminated single quote at position 5'],
    ['node x\\', 'command line ends with a lone backslash'],
    ['node "x\\', 'unterminated double quote at position 5'],
    ['node server.js | tee log', 'shell operator | is not supported (quote or escape it)'],
    ['node server.js; rm x', 'shell operator ; is not supported (quote or escape it)'],
    ['node server.js > out', 'shell operator > is not supported (quote or escape it)'],
    ['node server.js &', 'shell operator & is not supported (quote or escape it)'],
    ['node *.js', 'glob pattern *.js is not expanded (quote it)'],
    ['node server.js # note', 'a # comment is not supported (quote or escape the #)'],
    ['node $SERVER', 'variable $SERVER is not expanded (quote or escape the $)'],
    ['node --token=${TOKEN}', 'variable $TOKEN is not expanded (quote or escape the $)'],
  ])('rejects %j', (line, message) => {
    expect(() => splitCommandLine(line)).toThrow(new CommandLineError(message));
  });

  it('round-trips any words quoted with single quotes', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 0, maxLength: 12 }), { minLength: 1, maxLength: 6 }), (words) => {
        const line = words.map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
        expect(splitCommandLine(line)).toEqual(words);
      }),
    );
  });
});

describe('parseStdioCommand and displayStdioCommand', () => {
  it('takes leading NAME=value words as environment', () => {
    expect(
      parseStdioCommand('MCP_STRICT_UNKNOWN_FIELDS=false SP_REFRESH_TOKEN="Atzr|x y" node server.js --port 0'),
    ).toEqual({
      env: { MCP_STRICT_UNKNOWN_FIELDS: 'false', SP_REFRESH_TOKEN: 'Atzr|x y' },
      command: 'node',
      args: ['server.js', '--port', '0'],
    });
  });

  it('rejects a line without a program', () => {
    expect(() => parseStdioCommand('A=1 B=2')).toThrow('the command line names no program to run');
  });

  it('hides environment values and secret-looking arguments', () => {
    const command = parseStdioCommand(
      `SP_REFRESH_TOKEN='Atzr|abc' node "my server.js" --client-secret s3cr3t --api-key=k3y --region eu`,
    );
    expect(displayStdioCommand(command)).toBe(
      'SP_REFRESH_TOKEN=*** node "my server.js" --client-secret *** --api-key=*** --region eu',
    );
  });
});
