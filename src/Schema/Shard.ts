/** A part of a golden set or an archive of turns, as `--shard i/n` names it. */

/** Part `index` (from 1) of `count`. */
export interface Shard {
  readonly index: number
  readonly count: number
}
