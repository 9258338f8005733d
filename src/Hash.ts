/**
 * The one string hash of the product, where a choice must be stable across runs and machines: the
 * shard an item falls in, which questions a stand-in fault rate selects, a stand-in proposal's id.
 */

/** A 32-bit FNV-1a hash: small, fast and the same on every machine. */
export const fnv1a = (text: string): number => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash
}
