/**
 * Splits a `--stdio "<command line>"` the way a POSIX shell would split words, without running a
 * shell: no globbing, no variable expansion, no pipes.
 *
 * @packageDocumentation
 */

/** Thrown by {@link splitCommandLine} for a command line that cannot be split. */
export class CommandLineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandLineError';
  }
}

/** Characters a backslash escapes inside double quotes (POSIX); before others it stays literal. */
const DOUBLE_QUOTE_ESCAPABLE: ReadonlySet<string> = new Set(['"', '\\', '$', '`', '\n']);

interface SplitState {
  readonly words: string[];
  current: string;
  /** Whether a word has started (so that `""` yields an empty word). */
  inWord: boolean;
}

function finishWord(state: SplitState): void {
  if (state.inWord) state.words.push(state.current);
  state.current = '';
  state.inWord = false;
}

/** Reads a single-quoted run starting after the opening quote; returns the index after the closing quote. */
function readSingleQuoted(text: string, start: number, state: SplitState): number {
  const end = text.indexOf("'", start);
  if (end === -1) throw new CommandLineError(`unterminated single quote at position ${start - 1}`);
  state.current += text.slice(start, end);
  return end + 1;
}

/** Reads a double-quoted run starting after the opening quote; returns the index after the closing quote. */
function readDoubleQuoted(text: string, start: number, state: SplitState): number {
  let index = start;
  while (index < text.length) {
    const character = text.charAt(index);
    if (character === '"') return index + 1;
    if (character === '\\' && index + 1 < text.length && DOUBLE_QUOTE_ESCAPABLE.has(text.charAt(index + 1))) {
      if (text.charAt(index + 1) !== '\n') state.current += text.charAt(index + 1);
      index += 2;
      continue;
    }
    state.current += character;
    index += 1;
  }
  throw new CommandLineError(`unterminated double quote at position ${start - 1}`);
}

/**
 * Splits a command line into words: whitespace separates words; `'...'` keeps everything literal;
 * `"..."` keeps everything but `\"`, `\\`, `\$`, `` \` `` (unescaped) and backslash-newline (removed);
 * outside quotes a backslash escapes the next character (backslash-newline is removed); quoted and
 * unquoted parts next to each other join into one word; `""` is an empty word.
 *
 * @param commandLine - e.g. `node "my server.js" --name 'a b'`.
 * @returns the words, e.g. `["node", "my server.js", "--name", "a b"]`.
 * @throws CommandLineError for an unterminated quote or a trailing lone backslash.
 */
export function splitCommandLine(commandLine: string): string[] {
  const state: SplitState = { words: [], current: '', inWord: false };
  let index = 0;
  while (index < commandLine.length) {
    const character = commandLine.charAt(index);
    if (/\s/.test(character)) {
      finishWord(state);
      index += 1;
    } else if (character === "'") {
      state.inWord = true;
      index = readSingleQuoted(commandLine, index + 1, state);
    } else if (character === '"') {
      state.inWord = true;
      index = readDoubleQuoted(commandLine, index + 1, state);
    } else if (character === '\\') {
      if (index + 1 >= commandLine.length) throw new CommandLineError('command line ends with a lone backslash');
      const next = commandLine.charAt(index + 1);
      if (next !== '\n') {
        state.current += next;
        state.inWord = true;
      }
      index += 2;
    } else {
      state.current += character;
      state.inWord = true;
      index += 1;
    }
  }
  finishWord(state);
  return state.words;
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
 * and the argument after such a flag shows `***`. Words with spaces are double-quoted.
 *
 * @param command - the parsed command.
 * @returns a one-line display string.
 */
export function displayStdioCommand(command: StdioCommand): string {
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
