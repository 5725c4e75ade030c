/**
 * Keeping the first few entries of a long stream in a given order without sorting the stream:
 * the validation-error path uses it so that a huge invalid argument costs time linear in its size.
 *
 * @packageDocumentation
 */

/**
 * The first `limit` entries offered, in `compare` order, kept in a sorted list of at most `limit`
 * entries. Each offer costs a comparison with the last kept entry, plus a binary search and an
 * insertion into the short list when it is earlier; so offering `n` entries costs `O(n log limit)`
 * comparisons at worst and about `n` when the stream comes roughly in order, where sorting all of
 * them costs `O(n log n)` and keeps them all.
 */
export class FirstInOrder<Entry> {
  readonly #limit: number;
  readonly #compare: (left: Entry, right: Entry) => number;
  readonly #kept: Entry[] = [];
  #offered = 0;

  /**
   * @param limit - how many entries to keep (at least 0).
   * @param compare - the order: negative when `left` comes first; ties keep the earlier offer first.
   */
  constructor(limit: number, compare: (left: Entry, right: Entry) => number) {
    this.#limit = Math.max(0, limit);
    this.#compare = compare;
  }

  /** Offers one entry. */
  offer(entry: Entry): void {
    this.#offered += 1;
    const kept = this.#kept;
    if (kept.length === this.#limit && (kept.length === 0 || this.#compare(entry, kept[kept.length - 1] as Entry) >= 0))
      return;
    let low = 0;
    let high = kept.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#compare(entry, kept[middle] as Entry) < 0) high = middle;
      else low = middle + 1;
    }
    kept.splice(low, 0, entry);
    if (kept.length > this.#limit) kept.pop();
  }

  /** The kept entries, in order (a new array). */
  entries(): Entry[] {
    return [...this.#kept];
  }

  /** How many entries were offered and not kept. */
  get dropped(): number {
    return this.#offered - this.#kept.length;
  }
}
