/**
 * A server's LWA token clients when it has more than one: one per selling partner identity, one
 * per regional token endpoint.
 *
 * @packageDocumentation
 */
import { LwaTokenClient } from './lwa-client.js';
import type { LwaSettings, SecretRegistry } from './lwa-client.js';

function sameChanges(made: Partial<LwaSettings>, asked: Partial<LwaSettings>): boolean {
  const names = Object.keys(made) as (keyof LwaSettings)[];
  return (
    names.length === Object.keys(asked).length && names.every((name) => name in asked && made[name] === asked[name])
  );
}

/**
 * LWA token clients built on first use from settings every client shares (the application's
 * credentials) and what one key changes (a refresh token, a token endpoint). Each client caches
 * its own access token; all register their secrets with the same redactor.
 */
export class LwaTokenClients<Key> {
  readonly #clients = new Map<Key, { readonly client: LwaTokenClient; readonly changes: Partial<LwaSettings> }>();
  readonly #base: LwaSettings;
  readonly #secrets: SecretRegistry;

  /**
   * @param base - the settings every client shares.
   * @param secrets - the server's redactor, handed to each client.
   */
  constructor(base: LwaSettings, secrets: SecretRegistry) {
    this.#base = base;
    this.#secrets = secrets;
  }

  /**
   * The client of `key`, created on first use with `changes` over the shared settings. When the
   * changes differ from those the key's client was made with (a refresh token rotated at its
   * source), a new client replaces it, so a call never gets a token for the old credentials.
   *
   * @param key - what tells the clients apart (an identity id, a token URL).
   * @param changes - what this key's client changes; compared member by member with `===`.
   */
  client(key: Key, changes: Partial<LwaSettings>): LwaTokenClient {
    const known = this.#clients.get(key);
    if (known !== undefined && sameChanges(known.changes, changes)) return known.client;
    const client = new LwaTokenClient({ ...this.#base, ...changes }, this.#secrets);
    this.#clients.set(key, { client, changes: { ...changes } });
    return client;
  }

  /**
   * Drops the client of `key` and its cached access token (a new refresh token then gets a new one).
   *
   * @param key - the key.
   */
  forget(key: Key): void {
    this.#clients.delete(key);
  }
}
