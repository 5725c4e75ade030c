/**
 * The release gate: lockstep versions and machine-enforced migration windows.
 *
 * @packageDocumentation
 */
export * from './history.js';
export * from './release-check.js';
export * from './snapshot.js';
export * from './tool-contracts.js';
export * from './workspace.js';
