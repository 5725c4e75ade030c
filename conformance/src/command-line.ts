/**
 * Splits a `--stdio "<command line>"` the way a POSIX shell would split words, without running a
 * shell: no globbing, no variable expansion, no pipes.
 *
 * @packageDocumentation
 */

import { type ParseEntry, parse } from 'shell-quote';

/** Thrown by {@link splitCommandLine} for a command line that cannot be split. */
export class CommandLineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandLineError';
  }
}

/** What `shell-quote` hands back for a `$NAME` or `${NAME}` (we expand no variables). */
interface VariableEntry {
  readonly variable: string;
}

/**
 * Finds what `shell-quote` would silently accept (an unterminated quote, a trailing lone backslash)
 * and removes backslash-newline line continuations outside single quotes, which it would otherwise
 * turn into an empty word.
 */
function checkQuoting(line: string): string {
  let out = '';
  let open: "'" | '"' | undefined;
  let quoteStart = 0;
  for (let index = 0; index < line.length; index += 1) {
    const character = line.charAt(index);
    if (open !== "'" && character === '\\') {
      if (index + 1 >= line.length && open === undefined) {
        throw new CommandLineError('command line ends with a lone backslash');
      }
      if (line.charAt(index + 1) !== '\n') out += line.slice(index, index + 2);
      index += 1;
      continue;
    }
    if ((character === "'" || character === '"') && (open === undefined || open === character)) {
      if (open === undefined) quoteStart = index;
      open = open === undefined ? character : undefined;
    }
    out += character;
  }
  if (open !== undefined) {
    throw new CommandLineError(`unterminated ${open === "'" ? 'single' : 'double'} quote at position ${quoteStart}`);
  }
  return out;
}

/** Explains why an entry `shell-quote` parsed as shell syntax cannot be run without a shell. */
function refusal(entry: Exclude<ParseEntry, string> | VariableEntry): string {
  if ('variable' in entry) return `variable $${entry.variable} is not expanded (quote or escape the $)`;
  if ('comment' in entry) return `a # comment is not supported (quote or escape the #)`;
  if (entry.op === 'glob') return `glob pattern ${entry.pattern} is not expanded (quote it)`;
  return `shell operator ${entry.op} is not supported (quote or escape it)`;
}

/**
 * Splits a command line into words with `shell-quote`: whitespace separates words; `'...'` keeps
 * everything literal; `"..."` keeps everything but `\"`, `\\`, `\$` (unescaped) and
 * backslash-newline (removed); outside quotes a backslash escapes the next character
 * (backslash-newline is removed); quoted and unquoted parts next to each other join into one word;
 * `""` is an empty word.
 *
 * @param commandLine - e.g. `node "my server.js" --name 'a b'`.
 * @returns the words, e.g. `["node", "my server.js", "--name", "a b"]`.
 * @throws CommandLineError for an unterminated quote, a trailing lone backslash, or shell syntax a
 * command run without a shell cannot honour: an unquoted operator (`|`, `;`, `&`, `>`...), glob
 * (`*`, `?`), `#` comment or `$` variable.
 */
export function splitCommandLine(commandLine: string): string[] {
  const entries = parse(checkQuoting(commandLine), (variable): VariableEntry => ({ variable }));
  return entries.map((entry) => {
    if (typeof entry === 'string') return entry;
    throw new CommandLineError(refusal(entry));
  });
}

/** A parsed `--stdio` command: leading `NAME=value` assignments, the program, its arguments. */
export interface StdioCommand {
  /** Environment assignments written before the program (`NAME=value node server.js`). */
  readonly env: Readonly<Record<string, string>>;
  readonly command: string;
  readonly args: readonly string[];
}

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;

/**
 * Parses a `--stdio` command line: splits it with {@link splitCommandLine}, then takes leading
 * `NAME=value` words as environment assignments, the next word as the program, the rest as its
 * arguments.
 *
 * @param commandLine - the command line.
 * @returns the parsed command.
 * @throws CommandLineError when the line cannot be split or names no program.
 */
export function parseStdioCommand(commandLine: string): StdioCommand {
  const words = splitCommandLine(commandLine);
  const env: Record<string, string> = {};
  let index = 0;
  for (; index < words.length; index += 1) {
    const match = ASSIGNMENT.exec(words[index] ?? '');
    if (match === null) break;
    env[match[1] ?? ''] = match[2] ?? '';
  }
  const command = words[index];
  if (command === undefined || command === '') throw new CommandLineError('the command line names no program to run');
  return { env, command, args: words.slice(index + 1) };
}

const SECRET_NAME = /(token|secret|password|passwd|authorization|api[-_]?key|credential|client[-_]?secret)/i;

/**
 * Renders a parsed command for reports without leaking secrets: environment assignments show the
 * name only (`NAME=***`), an argument `--flag=value` whose flag looks secret shows `--flag=***`,
 * and the argument after such a flag shows `***`. Words with spaces or quotes are double-quoted.
 *
 * @param command - the parsed command.
 * @returns a one-line display string.
 */
export function displayStdioCommand(command: StdioCommand): string {
  // shell-quote's quote() escapes every `:` and `=`, which makes URLs in reports hard to read.
  const quote = (word: string): string => (/[\s"'\\]/.test(word) || word === '' ? JSON.stringify(word) : word);
  const parts = Object.keys(command.env).map((name) => `${name}=***`);
  parts.push(quote(command.command));
  let hideNext = false;
  for (const arg of command.args) {
    if (hideNext) {
      parts.push('***');
      hideNext = false;
      continue;
    }
    const flag = /^(--?[^=]+)=/.exec(arg);
    if (flag !== null && SECRET_NAME.test(flag[1] ?? '')) parts.push(`${flag[1] ?? ''}=***`);
    else {
      parts.push(quote(arg));
      hideNext = arg.startsWith('-') && SECRET_NAME.test(arg);
    }
  }
  return parts.join(' ');
}
