/**
 * The HTTP kit: what every REST upstream speaks, written once for every adapter: problem+json
 * bodies, rate-limit headers of every dialect, rate limits signalled by 403, `Link` pagination,
 * and a default classification built from them.
 *
 * @packageDocumentation
 */
export * from './problem-details.js';
export * from './rate-limit-headers.js';
export * from './rate-limit-signal.js';
export * from './links.js';
export * from './response-meta.js';
export * from './error-details.js';
export * from './classify.js';
export * from './in-band.js';
