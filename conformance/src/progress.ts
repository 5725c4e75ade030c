/**
 * The progress indicator written to stderr while probing.
 *
 * @packageDocumentation
 */
import type { ProbeProgress } from './probe.js';

/** Where progress goes. */
export interface ProgressSink {
  readonly write: (text: string) => void;
  /** On a terminal the line is redrawn in place; elsewhere each step gets its own line. */
  readonly isTTY: boolean;
}

/** A progress reporter: `report` per step, `finish` once at the end. */
export interface ProgressReporter {
  readonly report: (progress: ProbeProgress) => void;
  readonly finish: () => void;
}

/**
 * Formats one step: `[12/40] tool_name: probe`.
 *
 * @param progress - the step.
 * @returns the line, without a newline.
 */
export function formatProgress(progress: ProbeProgress): string {
  return `[${progress.index}/${progress.total}] ${progress.tool}: ${progress.probe}`;
}

/**
 * Creates a progress reporter. On a terminal each step overwrites the previous one (`\r` and
 * erase-line) and `finish` clears the line; otherwise each step is written on its own line.
 *
 * @param sink - the stream to write to.
 * @returns the reporter.
 */
export function createProgressReporter(sink: ProgressSink): ProgressReporter {
  let drawn = false;
  return {
    report: (progress) => {
      if (sink.isTTY) {
        sink.write(`\r\u001b[2K${formatProgress(progress)}`);
        drawn = true;
      } else sink.write(`${formatProgress(progress)}\n`);
    },
    finish: () => {
      if (drawn) sink.write('\r\u001b[2K');
      drawn = false;
    },
  };
}
