/**
 * Login with Amazon token handling shared by the Amazon API adapters.
 *
 * @packageDocumentation
 */
export * from './lwa-client.js';
