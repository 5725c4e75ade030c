/**
 * Values that pass JSON Schema but cannot be sent on: numbers that are not finite (JSON text such
 * as `1e400` parses to `Infinity`, which `JSON.stringify` turns into `null`) and strings that are
 * not well-formed Unicode (a lone UTF-16 surrogate, which no UTF-8 text can carry and which
 * `encodeURIComponent` refuses). Implements CONTRACT.md "Schema validation codes" (values JSON
 * cannot carry).
 *
 * @packageDocumentation
 */
import { FirstInOrder } from './first-in-order.js';
import { compareViolations, VIOLATION_LIMIT, valueViolation, VIOLATION_ORDER } from './schema-validation.js';
import type { CollectedViolations, ViolationContext } from './schema-validation.js';

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A string with `String.prototype.isWellFormed` (ES2024, in every Node this package supports; not in its ES2023 typings). */
interface WellFormedCheck {
  isWellFormed?(): boolean;
}

/**
 * Whether a string holds a lone surrogate. The native check answers at once for the common
 * strings V8 stores one byte per character, which cannot hold a surrogate; this runs on every
 * string of every call.
 */
export function hasLoneSurrogate(text: string): boolean {
  const checked = text as WellFormedCheck;
  return checked.isWellFormed === undefined ? LONE_SURROGATE.test(text) : !checked.isWellFormed();
}

/** A container still to look into, linked to its parent so a path is only built for a finding. */
interface Frame {
  readonly container: object;
  readonly parent: Frame | undefined;
  readonly key: string;
}

interface Finding {
  readonly kind: 'number' | 'string';
  readonly segments: readonly string[];
  readonly value: unknown;
  readonly rank: number;
  readonly keyword: string;
}

const NOTHING_UNSENDABLE: CollectedViolations = Object.freeze({ violations: [], omitted: 0 });

const TYPE_RANK = VIOLATION_ORDER.findIndex((entry) => entry.category === 'type');
const OTHER_RANK = VIOLATION_ORDER.length - 1;

function segmentsOf(frame: Frame, key: string): string[] {
  const segments = [key];
  for (let current: Frame | undefined = frame; current?.parent !== undefined; current = current.parent)
    segments.push(current.key);
  return segments.reverse();
}

function findingFor(value: unknown, frame: Frame, key: string): Finding | undefined {
  if (typeof value === 'number') {
    return Number.isFinite(value)
      ? undefined
      : { kind: 'number', segments: segmentsOf(frame, key), value, rank: TYPE_RANK, keyword: 'type' };
  }
  if (typeof value === 'string' && hasLoneSurrogate(value))
    return { kind: 'string', segments: segmentsOf(frame, key), value, rank: OTHER_RANK, keyword: 'format' };
  return undefined;
}

/**
 * Walks every value and key of the arguments (iteratively, so depth costs no stack; each object
 * once, so shared and circular references end) and keeps the first findings in
 * `VIOLATION_ORDER`.
 */
function findUnsendable(root: object, selection: FirstInOrder<Finding>): void {
  const seen = new Set<object>([root]);
  const stack: Frame[] = [{ container: root, parent: undefined, key: '' }];
  const look = (value: unknown, frame: Frame, key: string): void => {
    if (typeof value === 'object' && value !== null) {
      if (!seen.has(value)) {
        seen.add(value);
        stack.push({ container: value, parent: frame, key });
      }
      return;
    }
    const finding = findingFor(value, frame, key);
    if (finding !== undefined) selection.offer(finding);
  };
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    const container = frame.container;
    if (Array.isArray(container)) {
      for (let index = 0; index < container.length; index += 1) look(container[index], frame, String(index));
      continue;
    }
    for (const key of Object.keys(container)) {
      if (hasLoneSurrogate(key))
        selection.offer({
          kind: 'string',
          segments: segmentsOf(frame, key),
          value: key,
          rank: OTHER_RANK,
          keyword: 'format',
        });
      look((container as Record<string, unknown>)[key], frame, key);
    }
  }
}

/** How deep {@link mayHoldUnsendable} looks before it leaves the rest to the full walk. */
const QUICK_SCAN_DEPTH = 32;

/**
 * Whether a value may hold an unsendable number, string or key: `false` only when it surely
 * holds none. Recursive and allocation-free, since it runs on every call's arguments; past
 * {@link QUICK_SCAN_DEPTH} levels (deep or circular data) it answers `true`, for
 * {@link findUnsendable} to decide.
 */
function mayHoldUnsendable(value: unknown, depth: number): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (typeof value === 'string') return hasLoneSurrogate(value);
  if (typeof value !== 'object' || value === null) return false;
  if (depth >= QUICK_SCAN_DEPTH) return true;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) if (mayHoldUnsendable(value[index], depth + 1)) return true;
    return false;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (hasLoneSurrogate(key) || mayHoldUnsendable((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

/**
 * The violations for values of the arguments that cannot be sent on, whatever the schema says:
 * - a number that is not finite: `SCHEMA_TYPE_MISMATCH` with `expected_type: "number"` and
 *   `received_type` `"Infinity"`, `"-Infinity"` or `"NaN"`;
 * - a string or key holding a lone surrogate: `SCHEMA_FORMAT_INVALID` with `format: "unicode"`
 *   (for a key, the path is the key's own).
 *
 * @param args - the arguments (normalized), any JSON-like value.
 * @param context - the property order, for choosing the first {@link VIOLATION_LIMIT}.
 * @returns the violations, sorted, and how many more there were.
 */
export function unsendableViolations(args: unknown, context: ViolationContext): CollectedViolations {
  if (!mayHoldUnsendable(args, 0)) return NOTHING_UNSENDABLE;
  const selection = new FirstInOrder<Finding>(VIOLATION_LIMIT, (left, right) =>
    compareViolations(left, right, context.propertyOrder),
  );
  // a root that is no object fails the object-typed schema already
  if (typeof args === 'object' && args !== null) findUnsendable(args, selection);
  const violations = selection
    .entries()
    .map((finding) =>
      finding.kind === 'number'
        ? valueViolation(
            'type',
            finding.segments,
            finding.value,
            { expected_type: 'number' },
            { expected_type: 'a finite number' },
          )
        : valueViolation(
            'format',
            finding.segments,
            finding.value,
            { format: 'unicode' },
            { format: 'Unicode string (it holds a lone UTF-16 surrogate, which no UTF-8 text can carry)' },
          ),
    );
  return { violations, omitted: selection.dropped };
}
