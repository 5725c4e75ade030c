/**
 * Secret redaction for everything an envelope or a log line carries. Each server owns its
 * redactor: core's default rules cover credentials any HTTP API client handles (`Authorization`,
 * `Bearer`, cookies, OAuth and password fields); the adapter adds its upstream's patterns, secret
 * header names and credential prefixes, and its credential clients register the secret values
 * they hold with that redactor only. Implements the rule "secrets never appear in any output".
 *
 * @packageDocumentation
 */

/** What a redacted secret is replaced by. */
export const REDACTED = '[REDACTED]';

interface Rule {
  readonly pattern: RegExp;
  readonly replace: string | ((match: string, ...groups: string[]) => string);
}

const keepPrefix = (_match: string, prefix: string): string => `${prefix}${REDACTED}`;
/** A header name and its separator kept (two groups), the value replaced. */
const keepNameAndSeparator = (_match: string, name: string, separator: string): string =>
  `${name}${separator}${REDACTED}`;

/** The header names whose values are secrets for every server. */
const DEFAULT_SECRET_HEADERS: readonly string[] = ['authorization', 'x-api-key'];

/** Credential field names, snake_case, kebab-case or camelCase (matched ignoring case). */
const SECRET_FIELDS = 'access[_-]?token|refresh[_-]?token|client[_-]?secret|password|passwd|pwd|api[_-]?key';

/** `prefix` kept, the value replaced; a quoted value keeps its quotes. */
const keepPrefixAndQuotes = (_match: string, prefix: string, value: string): string => {
  const quote = value.startsWith('"') || value.startsWith("'") ? value[0] : '';
  return `${prefix}${quote}${REDACTED}${quote}`;
};

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The three spellings of a secret header's value: quoted (JSON), `name: value` / `name=value`, URL-encoded. */
function headerRules(headers: string): Rule[] {
  return [
    // Quoted (JSON) header values: the whole string value, escaped quotes inside it included (also
    // JSON written inside a JSON string: `{\"x-api-key\":\"...\"}`).
    {
      pattern: new RegExp(`(${headers})(\\\\?["']\\s*:\\s*\\\\?["'])(?:[^"'\\\\\\r\\n]|\\\\.)*`, 'gi'),
      replace: keepNameAndSeparator,
    },
    // `name: value` / `name=value` in prose or raw headers: a quoted value whole, else up to the end of the value.
    {
      pattern: new RegExp(
        `(${headers})(\\s*[:=]\\s*)(?:\\\\?"[^"\\r\\n]*"?|\\\\?'[^'\\r\\n]*'?|[^"'\\r\\n,;}]+)`,
        'gi',
      ),
      replace: keepNameAndSeparator,
    },
    // The same, URL-encoded (`Authorization%3A%20<value>`, `x-api-key%3D<value>`): up to the next parameter.
    { pattern: new RegExp(`(${headers})(%3[AD](?:%20|\\+)*)[^\\s"'&#,;}]+`, 'gi'), replace: keepNameAndSeparator },
  ];
}

/**
 * Core's rules after the header rules, applied before the adapter's patterns:
 * - cookies (`Cookie`, `Set-Cookie`), the whole header value;
 * - `Bearer <token>` (any case);
 * - credential fields `access_token`, `refresh_token`, `client_secret`, `password`, `passwd`,
 *   `pwd`, `api_key` (also kebab-case and camelCase: `client-secret`, `accessToken`), as JSON,
 *   form-encoded or `name=value` in prose; a quoted value is replaced whole, spaces included.
 * Each also when URL-encoded, as upstreams echo request URLs: `Bearer%20...`, `Bearer+...`,
 * `Authorization%3A%20...`, `password%3D...`, with `%XX` escapes inside the secret. A quoted
 * value is replaced whole, escaped quotes inside it included, also when the JSON is itself written
 * inside a JSON string (`{\"password\":\"...\"}`). No rule needs a word boundary before its name:
 * a secret glued to other text (`myBearer ...`, `db_password=...`, `proxy_authorization: ...`) is
 * redacted too; a few ordinary words may be redacted with it, which is the safe side.
 */
const DEFAULT_RULES: readonly Rule[] = [
  // Cookies: the whole header value (pairs are separated by `;`), as `:`, `=` or URL-encoded.
  {
    pattern: /((?:set-)?cookie)(\\?["']?\s*(?:[:=]|%3[AD])\s*\\?["']?)(?:[^"'\\\r\n]|\\.)+/gi,
    replace: keepNameAndSeparator,
  },
  // A bearer token, quoted or not: up to white space, a quote or a delimiter, whatever characters it holds.
  { pattern: /(Bearer(?:\s|%20|\+)+)["']?[^\s"'&,;<>(){}[\]]+/gi, replace: keepPrefix },
  // Credential fields: a quoted value whole (escaped quotes inside it included), else the token
  // after an optional (possibly escaped or URL-encoded) quote, up to the next delimiter.
  {
    pattern: new RegExp(
      `((?:${SECRET_FIELDS})(?:\\\\?["']|%2[27])?(?:\\s|%20)*(?:[:=]|%3[AD])(?:\\s|%20|\\+)*)("(?:[^"\\\\]|\\\\.)*"|'(?:[^'\\\\]|\\\\.)*'|(?:\\\\?["']|%2[27])?[^"'&\\s,}\\\\]+)`,
      'gi',
    ),
    replace: keepPrefixAndQuotes,
  },
];

/**
 * One cheap pass that every default rule needs to match (the secret header names are added per
 * redactor): when a string has none of these words, no default rule can apply.
 */
const DEFAULT_TRIGGER_SOURCE =
  'bearer|client[_-]?id[_-]?secret|cookie|access[_-]?token|refresh[_-]?token|client[_-]?secret|passw(?:or)?d|pwd|api[_-]?key';

/** Patterns with the cheap test that each of them needs to match; see {@link RedactorOptions.triggeredPatterns}. */
export interface TriggeredPatterns {
  readonly trigger: RegExp;
  readonly patterns: readonly RegExp[];
}

/** What an adapter adds to core's default rules; see `createRedactor` of `@mcp-envelope/core/adapter`. */
export interface RedactorOptions {
  /**
   * Patterns whose matches are replaced by `REDACTED` (a missing `g` flag is added). A
   * pattern with a capture group named `keep` keeps that group's text and replaces the rest of
   * the match (`/(?<keep>Signature=)[^&]+/`).
   */
  readonly patterns?: readonly RegExp[];
  /**
   * Patterns applied only to the strings their `trigger` matches: a cheap test (one pass, no
   * backtracking) that every one of the `patterns` needs to match, so that a string without
   * any of the trigger's words is not scanned by each pattern.
   */
  readonly triggeredPatterns?: readonly TriggeredPatterns[];
  /** Header names (any case) whose values are secrets, beside `Authorization` and `x-api-key`. */
  readonly secretHeaders?: readonly string[];
  /** Object keys (any case) whose string values are replaced whole, beside the credential fields and secret headers. */
  readonly secretKeys?: readonly string[];
  /**
   * Public prefixes of credential values (anchored at the start, e.g. `/^tok_/`): a registered
   * secret is also replaced without its prefix, as upstreams sometimes echo only the rest.
   */
  readonly publicPrefixes?: readonly RegExp[];
}

/** The shortest value {@link Redactor.registerSecret} accepts: shorter ones would blank ordinary words. */
export const MIN_SECRET_LENGTH = 8;

/**
 * The shortest piece of a known secret that is redacted on its own (when a secret is split
 * across fields or cut): every piece of at least twice this length minus one is found.
 */
export const FRAGMENT_LENGTH = 16;

/**
 * At most this many short-lived secrets (see {@link SecretLifetime}) are remembered; past it the
 * oldest short-lived one is forgotten first. A last resort only: expiry drops them long before,
 * and a long-lived secret is never forgotten.
 */
export const MAX_SHORT_LIVED_SECRETS = 256;

/** How long a short-lived secret is still looked for after its stated expiry, in milliseconds. */
export const SHORT_LIVED_MARGIN_MS = 10 * 60 * 1000;

/**
 * How long a registered secret stays live (see {@link Redactor.registerSecret}). Without one, a
 * secret is long-lived (a client secret, a refresh token, an API key, a password) and kept for
 * the life of the redactor.
 */
export interface SecretLifetime {
  /**
   * Seconds from now after which the secret is no longer valid (an access token's
   * `expires_in`): it is looked for until then plus ten minutes (`SHORT_LIVED_MARGIN_MS`), on the
   * redactor's clock (`Date.now`), and forgotten after.
   */
  readonly expiresInSeconds: number;
}

/**
 * A known secret as the redactor looks for it: the literal spellings replaced wherever they
 * appear (the value, the value without its public prefix, each with dots written as slashes, as
 * a path rewrite spells them), and the windows whose presence marks a fragment of it.
 */
interface KnownSecret {
  readonly spellings: readonly string[];
  /** {@link FRAGMENT_LENGTH}-character pieces of each long spelling, with where they sit in it. */
  readonly windows: readonly { readonly text: string; readonly spelling: string; readonly offset: number }[];
}

/**
 * `text` and, when it holds characters a URL escapes (`|`, `+`, `/`, `=`), its URL-encoded forms
 * with upper- and lower-case hex: upstreams echo the request URLs and forms that carried it.
 */
function urlEncodedSpellings(text: string): string[] {
  const encoded = encodeURIComponent(text);
  if (encoded === text) return [text];
  return [text, encoded, encoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())];
}

/**
 * The part of the base64 text of `text` that stays the same wherever `text` sits in a longer
 * encoded value (`Basic base64(client_id:client_secret)`), for each of the three byte alignments,
 * in the standard and the URL-safe alphabet: the groups that hold only bytes of `text`.
 */
function base64Cores(text: string): string[] {
  const bytes = Buffer.from(text, 'utf8');
  const cores: string[] = [];
  for (let lead = 0; lead < 3; lead += 1) {
    const skip = (3 - lead) % 3;
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    if (whole < 12) continue;
    const core = bytes.subarray(skip, skip + whole).toString('base64');
    cores.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return cores;
}

function withoutPublicPrefix(secret: string, publicPrefixes: readonly RegExp[]): string {
  for (const prefix of publicPrefixes) {
    const bare = secret.replace(prefix, '');
    if (bare !== secret) return bare;
  }
  return secret;
}

function knownSecret(secret: string, publicPrefixes: readonly RegExp[]): KnownSecret {
  const bare = withoutPublicPrefix(secret, publicPrefixes);
  const bases = bare !== secret && bare.length >= MIN_SECRET_LENGTH ? [secret, bare] : [secret];
  // the JSON-escaped spelling too: results and envelopes are tested through their JSON text first
  const plain = [
    ...new Set(
      bases
        .flatMap((base) => [base, base.replaceAll('.', '/')])
        .flatMap(urlEncodedSpellings)
        .flatMap((spelling) => [spelling, JSON.stringify(spelling).slice(1, -1)]),
    ),
  ];
  const spellings = [...plain, ...new Set(bases.flatMap(base64Cores))];
  // one window per distinct text: the spellings share most of their pieces
  const windows = new Map<string, { text: string; spelling: string; offset: number }>();
  // pieces of the plain spellings only: a base64 text cut across fields is not looked for, and
  // its windows would multiply the cost of every string redacted
  for (const spelling of plain) {
    if (spelling.length < 2 * FRAGMENT_LENGTH) continue;
    for (let offset = 0; offset + FRAGMENT_LENGTH <= spelling.length; offset += FRAGMENT_LENGTH) {
      const text = spelling.slice(offset, offset + FRAGMENT_LENGTH);
      if (!windows.has(text)) windows.set(text, { text, spelling, offset });
    }
  }
  return { spellings, windows: [...windows.values()] };
}

/** Replaces the longest run around `at` that agrees with `spelling` around `offset`. */
function replaceFragmentAt(
  text: string,
  at: number,
  window: KnownSecret['windows'][number],
): { text: string; next: number } {
  const { spelling, offset } = window;
  let start = at;
  let from = offset;
  while (start > 0 && from > 0 && text[start - 1] === spelling[from - 1]) {
    start -= 1;
    from -= 1;
  }
  let end = at + FRAGMENT_LENGTH;
  let to = offset + FRAGMENT_LENGTH;
  while (end < text.length && to < spelling.length && text[end] === spelling[to]) {
    end += 1;
    to += 1;
  }
  return { text: `${text.slice(0, start)}${REDACTED}${text.slice(end)}`, next: start + REDACTED.length };
}

/** The secret values one redactor knows, by value, oldest first. */
type KnownSecrets = Map<string, KnownSecret>;

/** A short-lived secret with the epoch millisecond after which it is forgotten. */
interface ShortLivedSecret {
  readonly secret: KnownSecret;
  readonly forgetAt: number;
}

/**
 * The two kinds of secrets a redactor holds: long-lived ones for its whole life, short-lived ones
 * until their expiry (plus a margin) or, past {@link MAX_SHORT_LIVED_SECRETS}, the oldest first.
 * Kept apart so that no number of rotated access tokens can push a client secret out.
 */
interface SecretStore {
  readonly lasting: KnownSecrets;
  readonly shortLived: Map<string, ShortLivedSecret>;
}

/** Drops the short-lived secrets whose time is up (by `now`, epoch ms). */
function forgetExpired(store: SecretStore, now: number): void {
  for (const [value, entry] of store.shortLived) if (entry.forgetAt <= now) store.shortLived.delete(value);
}

/** Every secret the store holds now, long-lived first. */
function liveSecrets(store: SecretStore): KnownSecret[] {
  if (store.shortLived.size > 0) forgetExpired(store, Date.now());
  const secrets = [...store.lasting.values()];
  for (const entry of store.shortLived.values()) secrets.push(entry.secret);
  return secrets;
}

function replaceKnownSecrets(text: string, known: readonly KnownSecret[]): string {
  let result = text;
  // every whole spelling first: a piece of one secret that another shares must not cut it apart
  for (const secret of known) {
    for (const spelling of secret.spellings)
      if (result.includes(spelling)) result = result.split(spelling).join(REDACTED);
  }
  for (const secret of known) {
    for (const window of secret.windows) {
      let at = result.indexOf(window.text);
      while (at !== -1) {
        const replaced = replaceFragmentAt(result, at, window);
        result = replaced.text;
        at = result.indexOf(window.text, replaced.next);
      }
    }
  }
  return result;
}

/** Whether `text` holds a known secret, or a piece of one long enough to be redacted. */
function holdsKnownSecret(text: string, known: readonly KnownSecret[]): boolean {
  for (const secret of known) {
    if (
      secret.spellings.some((spelling) => text.includes(spelling)) ||
      secret.windows.some((window) => text.includes(window.text))
    )
      return true;
  }
  return false;
}

/**
 * Adds `value` to `store` (see {@link Redactor.registerSecret}): long-lived without a lifetime,
 * else short-lived until its expiry plus the margin, forgetting the oldest short-lived one past
 * the limit. A value known as long-lived stays long-lived whatever it is registered as later.
 */
function rememberSecret(
  store: SecretStore,
  value: string | undefined,
  publicPrefixes: readonly RegExp[],
  lifetime: SecretLifetime | undefined,
): void {
  if (value === undefined) return;
  const secret = value.trim();
  if (secret.length < MIN_SECRET_LENGTH || store.lasting.has(secret)) return;
  const known = store.shortLived.get(secret)?.secret ?? knownSecret(secret, publicPrefixes);
  store.shortLived.delete(secret);
  const seconds = lifetime?.expiresInSeconds;
  // a lifetime that is not a finite number of seconds says nothing: the safe side is to keep it
  if (seconds === undefined || !Number.isFinite(seconds)) {
    store.lasting.set(secret, known);
    return;
  }
  const now = Date.now();
  forgetExpired(store, now);
  if (store.shortLived.size >= MAX_SHORT_LIVED_SECRETS) {
    const oldest = store.shortLived.keys().next().value;
    if (oldest !== undefined) store.shortLived.delete(oldest);
  }
  store.shortLived.set(secret, { secret: known, forgetAt: now + Math.max(0, seconds) * 1000 + SHORT_LIVED_MARGIN_MS });
}

/** A server's redactor: replaces every secret in a string, or in every string inside a value. */
export interface Redactor {
  /** @returns `text` with every match replaced. */
  readonly string: (text: string) => string;
  /**
   * @returns a copy of `value` with every string redacted, and the whole string value of a key
   *   that names a credential or a secret header (`password`, `Authorization`, `Cookie`, ...);
   *   keys are redacted like strings (an echoed token can be a key); parts nested deeper than
   *   64 levels are redacted through their JSON text; non-JSON values are kept.
   */
  readonly value: <Value>(value: Value) => Value;
  /**
   * A cheap test on a whole text (the JSON of a large value, say): `false` means neither
   * {@link Redactor.string} nor {@link Redactor.value} would change anything in it or in the
   * value it is the JSON of, so a caller may skip walking the value.
   */
  readonly mayRedact: (text: string) => boolean;
  /**
   * Remembers a secret value so that this redactor replaces it wherever it appears, whatever its
   * shape: upstreams echo credentials that no pattern recognizes (an opaque access token, a
   * client secret quoted in an error description). A server's credential clients register the
   * client secrets, refresh tokens and access tokens they hold. Also replaced: the value without
   * its public prefix (see {@link RedactorOptions.publicPrefixes}), the value with its dots
   * written as slashes, each of these URL-encoded, the stable part of their base64 encodings (at
   * any alignment), and any piece of a long value of at least `2 * FRAGMENT_LENGTH - 1`
   * characters (a token split across two fields). Only this redactor knows the value: another
   * server in the same process does not.
   *
   * @param value - the secret; values shorter than `MIN_SECRET_LENGTH` characters (after
   *   trimming), or `undefined`, are ignored.
   * @param lifetime - omitted for a long-lived secret (client secret, refresh token, API key,
   *   password): kept, with every spelling above, for the life of the redactor. Given for a
   *   short-lived one (an access token): kept until its expiry plus `SHORT_LIVED_MARGIN_MS`; at
   *   most `MAX_SHORT_LIVED_SECRETS` short-lived ones are kept, the oldest forgotten first.
   */
  readonly registerSecret: (value: string | undefined, lifetime?: SecretLifetime) => void;
}

/** How deep {@link Redactor.value} walks a value object by object; deeper parts go through their JSON text. */
const MAX_WALK_DEPTH = 64;

/** Sets an own enumerable data property (also one named `__proto__`, which plain assignment would not create). */
function defineData(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A part of a value nested deeper than {@link MAX_WALK_DEPTH}, redacted through its JSON text so
 * that no depth hides a secret: the redacted text parsed back, or `REDACTED` for the whole
 * part when the text cannot be written or read back (a cycle, or a replacement that broke it).
 */
function redactDeepValue(value: object, redactString: (text: string) => string): unknown {
  try {
    const text = JSON.stringify(value) as string | undefined;
    if (text === undefined) return value;
    const redacted = redactString(text);
    return redacted === text ? value : (JSON.parse(redacted) as unknown);
  } catch {
    return REDACTED;
  }
}

function globalCopy(pattern: RegExp): RegExp {
  return new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
}

/** An adapter pattern as a rule: a `keep` group is kept, the rest of the match replaced. */
function patternRule(pattern: RegExp): Rule {
  return {
    pattern: globalCopy(pattern),
    replace: pattern.source.includes('(?<keep>') ? `$<keep>${REDACTED}` : REDACTED,
  };
}

function applyRules(text: string, rules: readonly Rule[]): string {
  let result = text;
  for (const rule of rules) {
    rule.pattern.lastIndex = 0;
    result =
      typeof rule.replace === 'string'
        ? result.replace(rule.pattern, rule.replace)
        : result.replace(rule.pattern, rule.replace);
  }
  return result;
}

/** Rules applied only to the strings `trigger` matches. */
interface RuleSet {
  readonly trigger: RegExp;
  readonly rules: readonly Rule[];
}

/** The compiled rules of one redactor: default rules for its header names, its key test, its trigger and its extra rules. */
interface CompiledRules {
  readonly defaults: readonly Rule[];
  readonly trigger: RegExp;
  readonly secretKey: RegExp;
  readonly extra: readonly Rule[];
  readonly triggered: readonly RuleSet[];
}

/** A copy of `pattern` without the `g` and `y` flags, for `test` calls that keep no state. */
function statelessCopy(pattern: RegExp): RegExp {
  return new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
}

function compileRules(options: RedactorOptions): CompiledRules {
  const headers = [...DEFAULT_SECRET_HEADERS, ...(options.secretHeaders ?? [])].map(escapeRegExp).join('|');
  const keys = (options.secretKeys ?? []).map(escapeRegExp);
  const keyNames = [SECRET_FIELDS, headers, '(?:set-)?cookie', 'client[_-]?id[_-]?secret', ...keys].join('|');
  return {
    defaults: [...headerRules(headers), ...DEFAULT_RULES],
    trigger: new RegExp(`${DEFAULT_TRIGGER_SOURCE}|${headers}`, 'i'),
    // a key that names a credential or a secret header: its string value is replaced whole
    secretKey: new RegExp(`^(?:[a-z0-9]*[_-])?(?:${keyNames})$`, 'i'),
    extra: (options.patterns ?? []).map(patternRule),
    triggered: (options.triggeredPatterns ?? []).map((set) => ({
      trigger: statelessCopy(set.trigger),
      rules: set.patterns.map(patternRule),
    })),
  };
}

/** Applies the compiled rules in their order: core's defaults, the triggered sets, the extra patterns. */
function patternRedaction(rules: {
  readonly defaults: CompiledRules['defaults'];
  readonly trigger: RegExp;
  readonly extraRules: CompiledRules['extra'];
  readonly triggered: CompiledRules['triggered'];
}): (text: string) => string {
  const { defaults, trigger, extraRules, triggered } = rules;
  return (text) => {
    let afterDefaults = trigger.test(text) ? applyRules(text, defaults) : text;
    for (const set of triggered)
      if (set.trigger.test(afterDefaults)) afterDefaults = applyRules(afterDefaults, set.rules);
    return extraRules.length === 0 ? afterDefaults : applyRules(afterDefaults, extraRules);
  };
}

/**
 * Builds a text redaction from patterns alone: what {@link Redactor.string} does before it looks
 * for registered secrets. It holds no registry, so it can be shared by every server of a process
 * (an adapter's classifier cleaning upstream text, say), while the secrets a server's credential
 * clients learn stay with that server's own {@link Redactor}.
 *
 * @param options - the adapter's patterns and secret header names (`publicPrefixes` and
 *   `secretKeys` only matter to registered secrets and values, so they are unused here).
 * @returns a pure function from text to the text with every match replaced by `REDACTED`.
 */
export function createTextRedaction(options: RedactorOptions = {}): (text: string) => string {
  const { defaults, trigger, extra: extraRules, triggered } = compileRules(options);
  return patternRedaction({ defaults, trigger, extraRules, triggered });
}

/**
 * Builds a server's redactor: core's default rules, then the adapter's triggered patterns and
 * patterns, then the secret values registered with it.
 *
 * @param options - the adapter's patterns, secret header names, secret keys and public prefixes.
 * @returns the redactor, knowing no secret value yet.
 */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const { defaults, trigger, secretKey, extra: extraRules, triggered } = compileRules(options);
  const publicPrefixes = options.publicPrefixes ?? [];
  const store: SecretStore = { lasting: new Map(), shortLived: new Map() };
  const redactPatterns = patternRedaction({ defaults, trigger, extraRules, triggered });
  const redactString = (text: string): string => {
    const afterPatterns = redactPatterns(text);
    return store.lasting.size === 0 && store.shortLived.size === 0
      ? afterPatterns
      : replaceKnownSecrets(afterPatterns, liveSecrets(store));
  };
  // Copy-on-write: a container is copied only when something inside it changed.
  // keys repeat across the items of a body: each distinct key is redacted once per walk
  const redactValue = (value: unknown, depth: number, keyCache: Map<string, string>): unknown => {
    if (typeof value === 'string') return redactString(value);
    if (typeof value !== 'object' || value === null) return value;
    if (depth > MAX_WALK_DEPTH) return redactDeepValue(value, redactString);
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let index = 0; index < value.length; index += 1) {
        const item: unknown = value[index];
        const redacted = redactValue(item, depth + 1, keyCache);
        if (redacted !== item) copy ??= value.slice();
        if (copy !== undefined) copy[index] = redacted;
      }
      return copy ?? value;
    }
    let copy: Record<string, unknown> | undefined;
    const keys = Object.keys(value);
    for (const [index, key] of keys.entries()) {
      const item = (value as Record<string, unknown>)[key];
      const redacted =
        typeof item === 'string' && item !== '' && secretKey.test(key)
          ? REDACTED
          : redactValue(item, depth + 1, keyCache);
      // a key is text the upstream chose too: an echoed token as a key is as much a leak
      let redactedKey = keyCache.get(key);
      if (redactedKey === undefined) {
        redactedKey = redactString(key);
        keyCache.set(key, redactedKey);
      }
      if ((redacted !== item || redactedKey !== key) && copy === undefined) {
        copy = {};
        for (const earlier of keys.slice(0, index))
          defineData(copy, earlier, (value as Record<string, unknown>)[earlier]);
      }
      if (copy !== undefined) defineData(copy, redactedKey, redacted);
    }
    return copy ?? value;
  };
  const mayRedact = (text: string): boolean => {
    if (trigger.test(text) || holdsKnownSecret(text, liveSecrets(store))) return true;
    if (
      triggered.some(
        (set) =>
          set.trigger.test(text) &&
          set.rules.some((rule) => {
            rule.pattern.lastIndex = 0;
            return rule.pattern.test(text);
          }),
      )
    )
      return true;
    return extraRules.some((rule) => {
      rule.pattern.lastIndex = 0;
      return rule.pattern.test(text);
    });
  };
  return {
    string: redactString,
    value: <Value>(value: Value): Value => redactValue(value, 0, new Map()) as Value,
    mayRedact,
    registerSecret: (value, lifetime) => {
      rememberSecret(store, value, publicPrefixes, lifetime);
    },
  };
}
