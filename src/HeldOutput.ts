/**
 * Output a run holds back to write a few lines at a time (its streamed case lines), flushed before the
 * process writes a line of its own outside the run, such as a signal's: that line then comes after
 * every case line the run had produced, in the order things happened.
 */
const flushes = new Set<() => void>()

/** Registers `flush` as writing what is held; `release` once it holds nothing more. */
export const holdingOutput = (flush: () => void): { readonly release: () => void } => {
  flushes.add(flush)
  return { release: () => flushes.delete(flush) }
}

/** Writes out whatever is held, before a line of the process's own. */
export const flushHeldOutput = (): void => {
  for (const flush of flushes) flush()
}
