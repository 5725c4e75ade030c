/**
 * The per-server hint tables an adapter hands to core. Core owns the hint machinery (when a hint
 * fires, its wording, its order); the adapter owns the data (which wrong keys and value aliases
 * its users send). Implements CONTRACT.md "Hints" (hint matchers are per-server, categories are
 * shared) and "Pre-flight normalization" (known renames).
 *
 * @packageDocumentation
 */

/**
 * Data an adapter supplies to tune normalization and hints. Every table is optional; keys and
 * values are compared exactly unless a field says otherwise.
 */
export interface AdapterHintTables {
  /**
   * Known wrong key -> canonical key (e.g. PascalCase v0 query parameters). Normalization consults
   * it before the case- and separator-insensitive match, and only when the canonical key is a
   * top-level property of the tool's schema. With normalization off it feeds `case_mismatch` hints.
   */
  readonly keyRenames?: Readonly<Record<string, string>>;
  /**
   * Per-property value aliases: property name -> alias (lower-cased) -> canonical value, e.g.
   * `{ region: { us: 'na', 'north america': 'na' } }`. Used for `did_you_mean` hints when an
   * `enum` check fails; values are never rewritten.
   */
  readonly valueAliases?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /**
   * Property name -> allowed values, for top-level properties whose schema describes the allowed
   * values only in prose. Used for `enum_suggest` hints when a call fails and the property's
   * string value is not in the list; never enforced.
   */
  readonly curatedEnums?: Readonly<Record<string, readonly string[]>>;
  /** Extra hints by `error_code`, appended after core's own hints for that code. */
  readonly extraHintsByCode?: Readonly<Record<string, readonly string[]>>;
}
