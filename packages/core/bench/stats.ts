/** The small statistics the benchmarks share. */

/**
 * The median of `values` (the upper one of an even count), `NaN` for none.
 *
 * @param values - any numbers.
 */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/**
 * The value at `fraction` of the sorted `values` (0 the lowest, 0.5 the median), `NaN` for none.
 *
 * @param values - any numbers.
 * @param fraction - from 0 to 1.
 */
export function quantile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

/**
 * This process's CPU time in milliseconds (user + system, all threads). On a shared machine,
 * wall-clock time also counts the time other processes hold the CPU, which swamps a 10 % ratio;
 * CPU time counts only this process's own work.
 */
export function cpuClock(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}
