/**
 * Selling-partner identities: several sellers served by one SP server, each with its own refresh
 * token, region and marketplaces, read from a file (`SP_IDENTITIES_FILE`) or fetched from an
 * identity service over HTTP (`SP_IDENTITY_SERVICE_URL`). Refresh tokens stay inside this module
 * and the LWA clients it builds: nothing here returns them to a tool answer.
 *
 * @packageDocumentation
 */
import { readFileSync } from 'node:fs';

import type { SecretRegistry } from '@mcp-envelope/amazon';
import { EnvelopeError, readSuccessBody } from '@mcp-envelope/core';
import type { ToolHandlerContext } from '@mcp-envelope/core';
import { endpointUrlProblem } from '@mcp-envelope/core/adapter';
import { isRecord } from '@mcp-envelope/contract';

import { parseSpRegion, SP_REGION_CODES } from './regions.js';
import type { SpRegion } from './regions.js';

/** What a tool answer may say about an identity (never its token). */
export interface SpIdentity {
  /** The identity's id, a positive integer. */
  readonly id: number;
  readonly name: string;
  /** The region of the seller account; its calls go to that region's endpoint. */
  readonly region: SpRegion;
  readonly marketplace_ids: readonly string[];
}

/** An identity with the refresh token its LWA client uses. */
export interface SpIdentityCredentials extends SpIdentity {
  readonly refreshToken: string;
}

/** Why the identity settings cannot be used (start-up) or an identity record is malformed. */
export class SpIdentityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SpIdentityError';
  }
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Reads the public fields of one identity record.
 *
 * @param value - one element of the file or of the service's list.
 * @param where - how to name the record in an error (`identities[2]`).
 * @returns the identity.
 * @throws SpIdentityError naming the field that is missing or wrong.
 */
export function parseIdentity(value: unknown, where: string): SpIdentity {
  if (!isRecord(value)) throw new SpIdentityError(`${where} must be an object`);
  const id = value['id'];
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1)
    throw new SpIdentityError(`${where}.id must be a positive integer`);
  const name = value['name'];
  if (typeof name !== 'string' || name.trim() === '')
    throw new SpIdentityError(`${where}.name must be a non-empty string`);
  const region = typeof value['region'] === 'string' ? parseSpRegion(value['region']) : undefined;
  if (region === undefined)
    throw new SpIdentityError(`${where}.region must be one of ${SP_REGION_CODES.join(', ')} (or a name of one)`);
  const marketplaces = value['marketplace_ids'] ?? [];
  if (
    !Array.isArray(marketplaces) ||
    !marketplaces.every((item): item is string => typeof item === 'string' && item !== '')
  ) {
    throw new SpIdentityError(`${where}.marketplace_ids must be a list of marketplace id strings`);
  }
  return { id, name: name.trim(), region, marketplace_ids: marketplaces };
}

function checkUniqueIds(identities: readonly SpIdentity[], where: string): void {
  const seen = new Set<number>();
  for (const identity of identities) {
    if (seen.has(identity.id)) throw new SpIdentityError(`${where}: identity id ${identity.id} appears twice`);
    seen.add(identity.id);
  }
}

/**
 * Reads the identities of an `SP_IDENTITIES_FILE` text: a JSON array of
 * `{id, name, region, marketplace_ids, refresh_token_env}`, each refresh token read from the
 * environment variable its `refresh_token_env` names.
 *
 * @param text - the file's content.
 * @param file - the file name, for errors.
 * @param env - where the refresh tokens are read.
 * @returns the identities with their tokens, in file order.
 * @throws SpIdentityError when the text is not such an array, an id repeats, or a named variable
 *   is unset (the message names the variable, never a value).
 */
export function parseIdentitiesFile(
  text: string,
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): SpIdentityCredentials[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // only the position: JSON.parse's message quotes the text, which may be a token put there by mistake
    const position = error instanceof Error ? /position (\d+)/.exec(error.message)?.[1] : undefined;
    throw new SpIdentityError(
      `SP_IDENTITIES_FILE ${file} is not valid JSON${position === undefined ? '' : ` (at position ${position})`}`,
    );
  }
  if (!Array.isArray(value) || value.length === 0)
    throw new SpIdentityError(`SP_IDENTITIES_FILE ${file} must hold a non-empty JSON array of identities`);
  const identities = value.map((item: unknown, index) => {
    const where = `SP_IDENTITIES_FILE ${file}: identities[${index}]`;
    const identity = parseIdentity(item, where);
    const variable = isRecord(item) ? item['refresh_token_env'] : undefined;
    if (typeof variable !== 'string' || !ENV_NAME.test(variable))
      throw new SpIdentityError(`${where}.refresh_token_env must name an environment variable`);
    const refreshToken = env[variable]?.trim() ?? '';
    if (refreshToken === '')
      throw new SpIdentityError(
        `${where}: environment variable ${variable} (the refresh token of identity ${identity.id}) is not set`,
      );
    return { ...identity, refreshToken };
  });
  checkUniqueIds(identities, `SP_IDENTITIES_FILE ${file}`);
  return identities;
}

/** Where identities come from. */
export interface SpIdentitySource {
  /** `file` (fixed at start-up) or `service` (fetched on demand). */
  readonly kind: 'file' | 'service';
  /** The identity a new session starts with (the file's first); none for the service. */
  readonly initialId: number | undefined;
  /** The service's base URL (its failures are told apart by it); none for the file. */
  readonly url: string | undefined;
  /**
   * The identities as the source lists them now.
   * @throws what `context.fetch` throws for the service (classified by the SP adapter).
   */
  list(context: ToolHandlerContext): Promise<readonly SpIdentity[]>;
  /**
   * One identity with its refresh token.
   * @returns `undefined` when the source has no such identity.
   * @throws what `context.fetch` throws for the service.
   */
  credentials(id: number, context: ToolHandlerContext): Promise<SpIdentityCredentials | undefined>;
  /**
   * Drops what is cached of an identity's credentials, after LWA refused its refresh token: the
   * next call asks the source again (the service may hold a rotated token by then). Optional, so
   * sources written before it still fit.
   */
  forget?(id: number): void;
}

/**
 * A source over a fixed list (the file).
 *
 * @param identities - the identities with their tokens.
 * @param secrets - the server's redactor: each refresh token is registered with it.
 * @returns the source.
 */
export function fixedIdentitySource(
  identities: readonly SpIdentityCredentials[],
  secrets: SecretRegistry,
): SpIdentitySource {
  for (const identity of identities) secrets.registerSecret(identity.refreshToken);
  const publicView = identities.map(({ id, name, region, marketplace_ids }) => ({ id, name, region, marketplace_ids }));
  return {
    kind: 'file',
    initialId: identities[0]?.id,
    url: undefined,
    list: () => Promise.resolve(publicView),
    credentials: (id) => Promise.resolve(identities.find((identity) => identity.id === id)),
    // the file is read once: a new token needs a restart
    forget: () => undefined,
  };
}

/** Settings of {@link identityServiceSource}. */
export interface IdentityServiceSettings {
  /** The service's base URL, without a trailing slash. */
  readonly url: string;
  /** Sent as `Authorization: Bearer <token>` when set. */
  readonly bearerToken?: string | undefined;
  /** Deadline of each request, in milliseconds. */
  readonly timeoutMs: number;
}

/**
 * A source backed by the identity service's REST shape:
 * - `GET {url}/identities` -> `200` and a JSON array of `{id, name, region, marketplace_ids}`
 *   (or an object whose `identities` member is that array);
 * - `GET {url}/identities/{id}` -> `200` and `{id, name, region, marketplace_ids, refresh_token}`,
 *   `404` when there is no such identity.
 * Every request goes through the call's `context.fetch`, so a non-2xx answer reaches the SP
 * adapter (`UPSTREAM_HTTP_<status>`, `upstream: "openbridge"`) with the call's telemetry. Fetched credentials are cached
 * per identity until LWA refuses the refresh token (see `forget`).
 *
 * @param settings - see {@link IdentityServiceSettings}.
 * @param secrets - the server's redactor: the bearer token and every fetched refresh token are registered with it.
 * @returns the source.
 */
export function identityServiceSource(settings: IdentityServiceSettings, secrets: SecretRegistry): SpIdentitySource {
  secrets.registerSecret(settings.bearerToken);
  const cached = new Map<number, SpIdentityCredentials>();
  const headers = {
    accept: 'application/json',
    ...(settings.bearerToken === undefined ? {} : { authorization: `Bearer ${settings.bearerToken}` }),
  };
  async function get(path: string, context: ToolHandlerContext): Promise<unknown> {
    // a lookup: when it fails, the tool's own SP-API request was never sent (core's Safe retries)
    const response = await context.fetch(`${settings.url}${path}`, {
      method: 'GET',
      headers,
      timeoutMs: settings.timeoutMs,
      lookup: true,
    });
    return readSuccessBody(response);
  }
  return {
    kind: 'service',
    initialId: undefined,
    url: settings.url,
    list: async (context) => {
      const body = await get('/identities', context);
      return asServiceAnswer(() => {
        const items = isRecord(body) ? body['identities'] : body;
        if (!Array.isArray(items))
          throw new SpIdentityError(
            'the identity service answered GET /identities with something other than a list of identities',
          );
        const identities = items.map((item: unknown, index) =>
          parseIdentity(item, `identity service: identities[${index}]`),
        );
        checkUniqueIds(identities, 'identity service');
        return identities;
      });
    },
    credentials: async (id, context) => {
      const known = cached.get(id);
      if (known !== undefined) return known;
      const body = await get(`/identities/${id}`, context);
      // registered before anything can fail, so no error text can carry it
      const refreshToken =
        isRecord(body) && typeof body['refresh_token'] === 'string' ? body['refresh_token'].trim() : '';
      secrets.registerSecret(refreshToken);
      const credentials = asServiceAnswer(() => {
        const identity = parseIdentity(body, `identity service: identity ${id}`);
        if (identity.id !== id || refreshToken === '')
          throw new SpIdentityError(`the identity service gave no refresh_token for identity ${id}`);
        return { ...identity, refreshToken };
      });
      cached.set(id, credentials);
      return credentials;
    },
    forget: (id) => {
      cached.delete(id);
    },
  };
}

/**
 * Runs a read of a 2xx identity service answer; a malformed answer becomes the SP server's client
 * failure (`upstream_client` / `TOOL_EXECUTION_FAILED`): the service answered, but not in its shape.
 */
function asServiceAnswer<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof SpIdentityError)) throw error;
    throw new EnvelopeError({
      error_kind: 'upstream_client',
      error_code: 'TOOL_EXECUTION_FAILED',
      summary: `The identity service's answer is malformed: ${error.message}.`,
      details: [{ path: '', issue: error.message, received_type: 'object', service: 'identity' }],
      hints: [
        'Check that SP_IDENTITY_SERVICE_URL points at a service with the documented shape (GET /identities, GET /identities/{id}).',
      ],
      retryable: false,
    });
  }
}

/**
 * Reads `SP_IDENTITIES_FILE`, or `SP_IDENTITY_SERVICE_URL` with `SP_IDENTITY_SERVICE_TOKEN`.
 *
 * @param env - the environment.
 * @param timeoutMs - deadline of identity service requests, in milliseconds.
 * @param secrets - the server's redactor, for the tokens the source holds.
 * @returns the source, or `undefined` when neither is set (the single-credential setup).
 * @throws SpIdentityError when both are set, the file cannot be read or is malformed, or the URL
 *   is not an absolute http(s) URL without user information, query or fragment.
 */
export function identitySourceFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs: number,
  secrets: SecretRegistry,
): SpIdentitySource | undefined {
  const file = env['SP_IDENTITIES_FILE']?.trim() ?? '';
  const url = env['SP_IDENTITY_SERVICE_URL']?.trim() ?? '';
  if (file !== '' && url !== '')
    throw new SpIdentityError('set SP_IDENTITIES_FILE or SP_IDENTITY_SERVICE_URL, not both');
  if (file !== '') {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new SpIdentityError(
        `SP_IDENTITIES_FILE ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      );
    }
    return fixedIdentitySource(parseIdentitiesFile(text, file, env), secrets);
  }
  if (url === '') return undefined;
  // never quoted: user information or a query may hold a credential
  const problem = endpointUrlProblem(url);
  if (problem !== undefined)
    throw new SpIdentityError(
      `SP_IDENTITY_SERVICE_URL ${problem}: set it to the service's base URL (GET /identities is appended) and the token in SP_IDENTITY_SERVICE_TOKEN`,
    );
  const bearerToken = env['SP_IDENTITY_SERVICE_TOKEN']?.trim();
  return identityServiceSource(
    { url: url.replace(/\/+$/, ''), bearerToken: bearerToken === '' ? undefined : bearerToken, timeoutMs },
    secrets,
  );
}
