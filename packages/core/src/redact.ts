/**
 * Secret redaction for everything an envelope or a log line carries. Core's default patterns
 * cover credentials every Amazon-facing server handles; adapters add their own.
 * Implements the rule "secrets never appear in any output".
 *
 * @packageDocumentation
 */

/** What a redacted secret is replaced by. */
export const REDACTED = '[REDACTED]';

interface Rule {
  readonly pattern: RegExp;
  readonly replace: (match: string, ...groups: string[]) => string;
}

const keepPrefix = (_match: string, prefix: string): string => `${prefix}${REDACTED}`;
const whole = (): string => REDACTED;
/** A header name and its separator kept (two groups), the value replaced. */
const keepNameAndSeparator = (_match: string, name: string, separator: string): string => `${name}${separator}${REDACTED}`;

/** The header names whose values are secrets. */
const SECRET_HEADERS = 'authorization|x-amz-access-token|x-amz-security-token|x-api-key';

/** Credential field names, snake_case, kebab-case or camelCase (matched ignoring case). */
const SECRET_FIELDS = 'access[_-]?token|refresh[_-]?token|client[_-]?secret|password|passwd|pwd|api[_-]?key';

/** `prefix` kept, the value replaced; a quoted value keeps its quotes. */
const keepPrefixAndQuotes = (_match: string, prefix: string, value: string): string => {
  const quote = value.startsWith('"') || value.startsWith("'") ? value[0] : '';
  return `${prefix}${quote}${REDACTED}${quote}`;
};

/**
 * Core's default rules, applied before the adapter's patterns:
 * - `Bearer <token>` (any case);
 * - Login with Amazon tokens `Atza|...` and `Atzr|...`;
 * - the value of an `Authorization`, `x-amz-access-token`, `x-amz-security-token`, `x-api-key`,
 *   `Cookie` or `Set-Cookie` header, as `name: value`, `"name": "value"` or `name=value`;
 * - AWS SigV4 query and header parameters (`X-Amz-Signature=`, `X-Amz-Credential=`,
 *   `X-Amz-Security-Token=`, `Signature=`, `Credential=`);
 * - credential fields `access_token`, `refresh_token`, `client_secret`, `password`, `passwd`,
 *   `pwd`, `api_key` (also kebab-case and camelCase: `client-secret`, `accessToken`), as JSON,
 *   form-encoded or `name=value` in prose; a quoted value is replaced whole, spaces included.
 * Each also when URL-encoded, as upstreams echo request URLs: `Bearer%20...`, `Bearer+...`,
 * `Atza%7C...`, `Authorization%3A%20...`, `password%3D...`, with `%XX` escapes inside the secret.
 * A quoted value is replaced whole, escaped quotes inside it included, also when the JSON is
 * itself written inside a JSON string (`{\"password\":\"...\"}`). No rule needs a word boundary before its name: a secret glued to other text (`xAtza|...`,
 * `myBearer ...`, `db_password=...`, `proxy_authorization: ...`) is redacted too; a few ordinary
 * words may be redacted with it, which is the safe side.
 */
const DEFAULT_RULES: readonly Rule[] = [
  // Quoted (JSON) header values: the whole string value, escaped quotes inside it included (also
  // JSON written inside a JSON string: `{\"x-api-key\":\"...\"}`).
  { pattern: new RegExp(`(${SECRET_HEADERS})(\\\\?["']\\s*:\\s*\\\\?["'])(?:[^"'\\\\\\r\\n]|\\\\.)*`, 'gi'), replace: keepNameAndSeparator },
  // `name: value` / `name=value` in prose or raw headers: a quoted value whole, else up to the end of the value.
  { pattern: new RegExp(`(${SECRET_HEADERS})(\\s*[:=]\\s*)(?:\\\\?"[^"\\r\\n]*"?|\\\\?'[^'\\r\\n]*'?|[^"'\\r\\n,;}]+)`, 'gi'), replace: keepNameAndSeparator },
  // The same, URL-encoded (`Authorization%3A%20<value>`, `x-amz-access-token%3D<value>`): up to the next parameter.
  { pattern: new RegExp(`(${SECRET_HEADERS})(%3[AD](?:%20|\\+)*)[^\\s"'&#,;}]+`, 'gi'), replace: keepNameAndSeparator },
  // Cookies: the whole header value (pairs are separated by `;`), as `:`, `=` or URL-encoded.
  { pattern: /((?:set-)?cookie)(\\?["']?\s*(?:[:=]|%3[AD])\s*\\?["']?)(?:[^"'\\\r\n]|\\.)+/gi, replace: keepNameAndSeparator },
  // A bearer token, quoted or not: up to white space, a quote or a delimiter, whatever characters it holds.
  { pattern: /(Bearer(?:\s|%20|\+)+)["']?[^\s"'&,;<>(){}[\]]+/gi, replace: keepPrefix },
  { pattern: /Atz[ar](?:\||%7C)[^\s"'&,;<>}\]]+/gi, replace: whole },
  { pattern: /((?:X-Amz-)?(?:Signature|Credential|Security-Token)(?:=|%3D))[^&\s"',;]+/gi, replace: keepPrefix },
  // Credential fields: a quoted value whole (escaped quotes inside it included), else the token
  // after an optional (possibly escaped or URL-encoded) quote, up to the next delimiter.
  {
    pattern: new RegExp(
      `((?:${SECRET_FIELDS})(?:\\\\?["']|%2[27])?(?:\\s|%20)*(?:[:=]|%3[AD])(?:\\s|%20|\\+)*)("(?:[^"\\\\]|\\\\.)*"|'(?:[^'\\\\]|\\\\.)*'|(?:\\\\?["']|%2[27])?[^"'&\\s,}\\\\]+)`,
      'gi',
    ),
    replace: keepPrefixAndQuotes,
  },
  // Login with Amazon client secrets, wherever they appear (dots also written as slashes, as a
  // field path rewrite spells them).
  { pattern: /amzn1[./]oa2-cs[./]v\d+[./][A-Za-z0-9]+/g, replace: whole },
];

/**
 * An object key that names a credential or a secret header: its string value is replaced whole
 * (`{ password: 'x' }`, `{ headers: { Authorization: '...' } }`), whatever the value looks like.
 */
const SECRET_KEY = new RegExp(`^(?:[a-z0-9]*[_-])?(?:${SECRET_FIELDS}|${SECRET_HEADERS}|(?:set-)?cookie|client[_-]?id[_-]?secret)$`, 'i');

/** Verdicts of {@link SECRET_KEY} for keys seen before: envelopes repeat the same few keys. */
const secretKeyVerdicts = new Map<string, boolean>();

function isSecretKey(key: string): boolean {
  let verdict = secretKeyVerdicts.get(key);
  if (verdict === undefined) {
    verdict = SECRET_KEY.test(key);
    if (secretKeyVerdicts.size < 1024) secretKeyVerdicts.set(key, verdict);
  }
  return verdict;
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

/** Secret values this process holds (client secrets, refresh and access tokens), by value. */
const KNOWN_SECRETS = new Map<string, KnownSecret>();

/** The shortest value {@link registerSecret} accepts: shorter ones would blank ordinary words. */
export const MIN_SECRET_LENGTH = 8;

/**
 * The shortest piece of a known secret that is redacted on its own (when a secret is split
 * across fields or cut): every piece of at least twice this length minus one is found.
 */
export const FRAGMENT_LENGTH = 16;

/** At most this many secrets are remembered; the oldest are forgotten first (access tokens rotate). */
const MAX_KNOWN_SECRETS = 256;

/** The public prefixes of Login with Amazon credentials; the rest of the value is the secret part. */
const PUBLIC_PREFIX = /^(?:Atz[ar]\||amzn1\.oa2-cs\.v\d+\.)/;

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

function knownSecret(secret: string): KnownSecret {
  const bare = secret.replace(PUBLIC_PREFIX, '');
  const bases = bare !== secret && bare.length >= MIN_SECRET_LENGTH ? [secret, bare] : [secret];
  const plain = [...new Set(bases.flatMap((base) => [base, base.replaceAll('.', '/')]).flatMap(urlEncodedSpellings))];
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

/**
 * Remembers a secret value so that every redactor replaces it wherever it appears, whatever its
 * shape: upstreams echo credentials that no pattern recognizes (an opaque access token, a client
 * secret quoted in an error description). The LWA client registers its client secret, refresh
 * token and every access token it obtains. Also replaced: the value without its public prefix
 * (`Atza|`, `Atzr|`, `amzn1.oa2-cs.v1.`), the value with its dots written as slashes, each of
 * these URL-encoded, the stable part of their base64 encodings (at any alignment), and any
 * piece of a long value of at least `2 * FRAGMENT_LENGTH - 1` characters (a token split across
 * two fields).
 *
 * The set is per process: a secret registered by one server is redacted by every redactor.
 *
 * @param value - the secret; values shorter than {@link MIN_SECRET_LENGTH} characters, or
 *   `undefined`, are ignored.
 */
export function registerSecret(value: string | undefined): void {
  if (value === undefined) return;
  const secret = value.trim();
  if (secret.length < MIN_SECRET_LENGTH || KNOWN_SECRETS.has(secret)) return;
  if (KNOWN_SECRETS.size >= MAX_KNOWN_SECRETS) {
    const oldest = KNOWN_SECRETS.keys().next().value;
    if (oldest !== undefined) KNOWN_SECRETS.delete(oldest);
  }
  KNOWN_SECRETS.set(secret, knownSecret(secret));
}

/** Replaces the longest run around `at` that agrees with `spelling` around `offset`. */
function replaceFragmentAt(text: string, at: number, window: KnownSecret['windows'][number]): { text: string; next: number } {
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

function replaceKnownSecrets(text: string): string {
  let result = text;
  // every whole spelling first: a piece of one secret that another shares must not cut it apart
  for (const secret of KNOWN_SECRETS.values()) {
    for (const spelling of secret.spellings) if (result.includes(spelling)) result = result.split(spelling).join(REDACTED);
  }
  for (const secret of KNOWN_SECRETS.values()) {
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
function holdsKnownSecret(text: string): boolean {
  for (const secret of KNOWN_SECRETS.values()) {
    if (secret.spellings.some((spelling) => text.includes(spelling)) || secret.windows.some((window) => text.includes(window.text))) return true;
  }
  return false;
}

/** A compiled redactor: replaces every secret in a string, or in every string inside a value. */
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
}

/**
 * One cheap pass that every default rule needs to match: when a string has none of these words,
 * no default rule can apply and the string is returned as is.
 */
const DEFAULT_TRIGGER = /bearer|client[_-]?id[_-]?secret|atz[ar](?:\||%7c)|authorization|x-amz-|x-api-key|cookie|signature(?:=|%3d)|credential(?:=|%3d)|security-token(?:=|%3d)|access[_-]?token|refresh[_-]?token|client[_-]?secret|passw(?:or)?d|pwd|api[_-]?key|oa2-cs/i;

/** How deep {@link Redactor.value} walks a value object by object; deeper parts go through their JSON text. */
const MAX_WALK_DEPTH = 64;

/** Sets an own enumerable data property (also one named `__proto__`, which plain assignment would not create). */
function defineData(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A part of a value nested deeper than {@link MAX_WALK_DEPTH}, redacted through its JSON text so
 * that no depth hides a secret: the redacted text parsed back, or {@link REDACTED} for the whole
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

/**
 * Builds a redactor from core's default rules plus extra patterns (each match replaced whole by
 * {@link REDACTED}; a missing `g` flag is added).
 *
 * @param extraPatterns - e.g. an adapter's `redactions`.
 * @returns the redactor.
 */
export function createRedactor(extraPatterns: readonly RegExp[] = []): Redactor {
  const extraRules: readonly Rule[] = extraPatterns.map((pattern) => ({ pattern: globalCopy(pattern), replace: whole }));
  const apply = (text: string, rules: readonly Rule[]): string => {
    let result = text;
    for (const rule of rules) {
      rule.pattern.lastIndex = 0;
      result = result.replace(rule.pattern, rule.replace);
    }
    return result;
  };
  const redactString = (text: string): string => {
    const afterDefaults = DEFAULT_TRIGGER.test(text) ? apply(text, DEFAULT_RULES) : text;
    const afterExtra = extraRules.length === 0 ? afterDefaults : apply(afterDefaults, extraRules);
    return KNOWN_SECRETS.size === 0 ? afterExtra : replaceKnownSecrets(afterExtra);
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
      const redacted = typeof item === 'string' && item !== '' && isSecretKey(key) ? REDACTED : redactValue(item, depth + 1, keyCache);
      // a key is text the upstream chose too: an echoed token as a key is as much a leak
      let redactedKey = keyCache.get(key);
      if (redactedKey === undefined) {
        redactedKey = redactString(key);
        keyCache.set(key, redactedKey);
      }
      if ((redacted !== item || redactedKey !== key) && copy === undefined) {
        copy = {};
        for (const earlier of keys.slice(0, index)) defineData(copy, earlier, (value as Record<string, unknown>)[earlier]);
      }
      if (copy !== undefined) defineData(copy, redactedKey, redacted);
    }
    return copy ?? value;
  };
  const mayRedact = (text: string): boolean => {
    if (DEFAULT_TRIGGER.test(text) || holdsKnownSecret(text)) return true;
    return extraRules.some((rule) => {
      rule.pattern.lastIndex = 0;
      return rule.pattern.test(text);
    });
  };
  return {
    string: redactString,
    value: <Value>(value: Value): Value => redactValue(value, 0, new Map()) as Value,
    mayRedact,
  };
}
