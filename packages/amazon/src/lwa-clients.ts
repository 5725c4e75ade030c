/**
 * A server's LWA token clients when it has more than one: one per selling partner identity, one
 * per regional token endpoint.
 *
 * @packageDocumentation
 */
import { LwaTokenClient } from './lwa-client.js';
import type { LwaSettings, SecretRegistry } from './lwa-client.js';

/**
 * LWA token clients built on first use from settings every client shares (the application's
 * credentials) and what one key changes (a refresh token, a token endpoint). Each client caches
 * its own access token; all register their secrets with the same redactor.
 */
export class LwaTokenClients<Key> {
  readonly #clients = new Map<Key, LwaTokenClient>();
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
   * The client of `key`, created on first use with `changes` over the shared settings.
   *
   * @param key - what tells the clients apart (an identity id, a token URL).
   * @param changes - what this key's client changes; read only when the client is created, so the
   *   same key must always come with the same changes.
   */
  client(key: Key, changes: Partial<LwaSettings>): LwaTokenClient {
    let client = this.#clients.get(key);
    if (client === undefined) {
      client = new LwaTokenClient({ ...this.#base, ...changes }, this.#secrets);
      this.#clients.set(key, client);
    }
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
