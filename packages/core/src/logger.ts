/**
 * The server log: one JSON line per event on stderr (never stdout, which the stdio transport
 * owns), through pino.
 *
 * @packageDocumentation
 */
import { pino } from 'pino';
import type { DestinationStream } from 'pino';

/**
 * The logging surface core needs. A pino `Logger` satisfies it; so does any object with the two
 * required methods (each takes a structured object, then a message).
 */
export interface EnvelopeLogger {
  /** Logs a failure that needs an operator (an internal error, an invalid envelope). */
  error(details: Record<string, unknown>, message: string): void;
  /** Logs a recoverable problem (an unreadable env switch value). */
  warn(details: Record<string, unknown>, message: string): void;
  /**
   * Logs an event worth finding later but needing no one (a failed call's correlation id, when
   * the ToolFailure mirror is on). Optional: a logger without it gets those lines through `warn`.
   */
  info?(details: Record<string, unknown>, message: string): void;
}

/**
 * Creates the default logger: pino writing JSON lines to `destination`, synchronously to file
 * descriptor 2 (stderr) when none is given, with `name: "mcp-envelope"`.
 *
 * @param destination - where lines go; tests pass a stream that captures them.
 * @returns a pino logger (which is an {@link EnvelopeLogger}).
 */
export function createEnvelopeLogger(destination?: DestinationStream): pino.Logger {
  return pino(
    { name: 'mcp-envelope', base: { pid: process.pid } },
    destination ?? pino.destination({ dest: 2, sync: true }),
  );
}
