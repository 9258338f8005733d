/**
 * Stable partitions of a golden set or an archive of turns, so that one large job runs as several on
 * separate machines: `--shard i/n` takes the items whose key hashes to part i of n, whatever their
 * order and whatever the other shards do.
 */
import { Either } from "effect"
import { fnv1a } from "../Hash.js"
import type { Shard } from "../Schema/Shard.js"

export type { Shard } from "../Schema/Shard.js"

/** Reads `i/n`, with 1 ≤ i ≤ n; the problem with any other text names no CLI flag (the CLI adds `--shard`). */
export const parseShard = (text: string): Either.Either<Shard, string> => {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim())
  const index = Number(match?.[1])
  const count = Number(match?.[2])
  return match !== null && count >= 1 && index >= 1 && index <= count
    ? Either.right({ index, count })
    : Either.left(`${JSON.stringify(text)}: expected i/n with 1 ≤ i ≤ n, such as 2/4`)
}

/** Whether the item with this key belongs to the shard. */
export const inShard = (shard: Shard, key: string): boolean => fnv1a(key) % shard.count === shard.index - 1
