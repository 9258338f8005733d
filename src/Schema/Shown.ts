/**
 * How values from input the product does not control are shown in facts and messages, so that their
 * size cannot swamp a report: each value clipped to 200 characters, each list to its first 20 items
 * and a count of the rest (`… and 99,980 more`). Pure.
 */
import { inert } from "./Inert.js"

const maxShown = 200

/** The most items a fact or a message lists; the rest are counted. */
export const maxListed = 20

/** Text cut to `limit` characters, `…` marking the cut. */
export const clipped = (text: string, limit: number): string => text.length > limit ? `${text.slice(0, limit)}…` : text

/** Untrusted text clipped so one huge value cannot swamp a report. */
export const shown = (text: string): string => clipped(text, maxShown)

/** A count with thousands separators, the same on every machine: `99,980`. */
export const showCount = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",")

/** The first `maxListed` items joined with `separator`, then `… and N more` for the rest. */
export const listed = (items: ReadonlyArray<string>, separator: string): string =>
  items.length <= maxListed
    ? items.join(separator)
    : [...items.slice(0, maxListed), `… and ${showCount(items.length - maxListed)} more`].join(separator)

/** A name from an input file as a message quotes it: clipped, in double quotes, inert. */
export const quoted = (name: string): string => inert(JSON.stringify(shown(name)))

/** Names from an input file as a message lists them: each clipped and inert, `none` for none. */
export const names = (all: ReadonlyArray<string>): string =>
  all.length === 0 ? "none" : inert(listed(all.map(shown), ", "))

/** An id quoted for a message, clipped (the message is made inert where it is printed). */
export const quoteId = (id: string): string => JSON.stringify(shown(id))

/** A limit in milliseconds exactly as it was set: `2s`, `1500ms`, `120s`. */
export const showMillis = (ms: number): string => ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`
