/**
 * The upstream fault battery of `probe --upstream-faults`: its rounds, their judge and the runner.
 *
 * @packageDocumentation
 */
export {
  DEFAULT_UPSTREAM_TIMEOUT_MS,
  MAX_FAULT_TOOL_CANDIDATES,
  TOKEN_URL_PLACEHOLDER,
  UPSTREAM_PLACEHOLDER,
  faultCommandLine,
  parseFaultArguments,
  runFaultBattery,
  startFaultUpstream,
} from './battery.js';
export type { FaultBatteryContext, UpstreamFaultOptions } from './battery.js';
export { faultExpectationLabel, judgeFaultRound } from './judge.js';
export {
  FAULT_PROBE_NAMES,
  FAULT_RETRY_AFTER_SECONDS,
  FAULT_ROUNDS,
  faultExpectationFor,
  RESET_SLACK_SECONDS,
} from './rounds.js';
export type { FaultAnswerContext, FaultExpectation, FaultProbeName, FaultRound } from './rounds.js';
