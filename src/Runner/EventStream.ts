/**
 * The one reader of server-sent events (`text/event-stream`), as the WHATWG HTML standard interprets
 * an event stream ("Server-sent events", §9.2.6): lines end with CRLF, LF or CR; a line starting with
 * `:` is a comment; `field:value` loses one leading space of its value; each `data` line's value joins
 * the event's data, lines separated by LF; a blank line dispatches the event, unless it has no data;
 * `id`, `retry` and unknown fields are ignored; a leading byte-order mark is dropped. It reads bytes a
 * chunk at a time, synchronously, and refuses a line or an event's data over its bound before holding
 * it whole. The live transport and the tests read every event stream through it.
 *
 * An event the stream ends without dispatching (no blank line after it) is dropped, as the standard
 * says and as the AI SDK's reader (`parseJsonEventStream`, over `eventsource-parser`) does. A CR that
 * ends the stream ends its line, as the standard says, where that reader waits for an LF to follow.
 */
import { Either } from "effect"

/** A bound of the reader: the longest line, and the most data one event may hold, in bytes. */
export interface EventStreamLimits {
  readonly maxLineBytes: number
  readonly maxEventBytes: number
}

/** What went over a bound: a line, or an event's data. */
export type Overflow = "line" | "event"

/** One dispatched event: its data, and its `event` field's value when it had one. */
export interface StreamEvent {
  readonly data: string
  readonly event: string | undefined
}

/** The events a chunk completed, in order: `data[i]` is the i-th event's data, `names[i]` its `event` field (no names: none had one). */
export interface Dispatched {
  readonly data: ReadonlyArray<string>
  readonly names: ReadonlyArray<string | undefined> | undefined
}

/** A reader of an event stream's bytes: `eventReader`. */
export interface EventReader<A> {
  /** What the events `chunk` completes give, or, when it takes a line or an event over its bound, what the overflow gives. */
  readonly push: (chunk: Uint8Array) => A
}

const LF = 10
const CR = 13
const COLON = 58
const SPACE = 32

/** Whether `bytes[start, end)` is the field `name` (its bytes given), alone or followed by a colon. */
const isField = (bytes: Uint8Array, start: number, end: number, name: ReadonlyArray<number>): boolean => {
  const after = start + name.length
  if (after > end || (after < end && bytes[after] !== COLON)) return false
  for (let i = 0; i < name.length; i++) if (bytes[start + i] !== name[i]) return false
  return true
}
const dataField = [100, 97, 116, 97]
const eventField = [101, 118, 101, 110, 116]

/** The bytes of a chunk as a Buffer, so that a line's text is decoded from its range without a view of its own. */
const asBuffer = (chunk: Uint8Array): Buffer =>
  Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)

/**
 * Reads an event stream's bytes, given a chunk at a time: `events` is handed the events each chunk
 * completes (once a chunk, none or many), `overflow` what went over `limits`. A line is decoded only
 * when it is a `data` or `event` field, and only its value: the reader sits on every streamed turn's
 * path. After an overflow the reader is spent: what it is pushed next means nothing.
 */
export const eventReader = <A>(
  limits: EventStreamLimits,
  events: (dispatched: Dispatched) => A,
  overflow: (what: Overflow) => A
): EventReader<A> => {
  const { maxEventBytes, maxLineBytes } = limits
  // The line the last chunk left unended, copied (a chunk is not ours to hold).
  let pending: Array<Uint8Array> = []
  let pendingBytes = 0
  // A CR that ended the last chunk: an LF starting the next one ends no line of its own.
  let afterCr = false
  let firstLine = true
  // The event being read: its data lines so far (joined with LF), their bytes, its `event` field.
  let data = ""
  let dataLines = 0
  let dataBytes = 0
  let name: string | undefined
  // The events this chunk completed.
  let found: Array<string> = []
  let names: Array<string | undefined> | undefined

  const dispatch = () => {
    if (dataLines > 0) {
      if (name !== undefined && names === undefined) names = found.map(() => undefined)
      found.push(data)
      names?.push(name)
    }
    data = ""
    dataLines = 0
    dataBytes = 0
    name = undefined
  }

  /** Interprets the line `bytes[start, end)`: whether it took the event's data over its bound. */
  const line = (bytes: Buffer, from: number, end: number): boolean => {
    let start = from
    if (firstLine) {
      firstLine = false
      if (end - start >= 3 && bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf) {
        start += 3
      }
    }
    if (start === end) {
      dispatch()
      return false
    }
    if (isField(bytes, start, end, dataField)) {
      let value = start + dataField.length + 1
      if (value < end && bytes[value] === SPACE) value++
      if (value > end) value = end
      const size = end - value
      dataBytes = dataLines === 0 ? size : dataBytes + 1 + size
      if (dataBytes > maxEventBytes) return true
      const text = bytes.toString("utf8", value, end)
      data = dataLines === 0 ? text : `${data}\n${text}`
      dataLines++
    } else if (isField(bytes, start, end, eventField)) {
      let value = start + eventField.length + 1
      if (value < end && bytes[value] === SPACE) value++
      name = value >= end ? "" : bytes.toString("utf8", value, end)
    }
    // Anything else is a comment (`:` first), `id`, `retry` or a field the standard does not name.
    return false
  }

  const push = (input: Uint8Array): A => {
    const chunk = asBuffer(input)
    found = []
    names = undefined
    let start = afterCr && chunk[0] === LF ? 1 : 0
    afterCr = false
    // The next CR is looked for again only once passed, so a chunk is scanned once for each byte.
    let cr = chunk.indexOf(CR, start)
    for (;;) {
      if (cr !== -1 && cr < start) cr = chunk.indexOf(CR, start)
      const lf = chunk.indexOf(LF, start)
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf)
      if (end === -1) break
      if (pendingBytes + end - start > maxLineBytes) return overflow("line")
      let over: boolean
      if (pending.length === 0) {
        over = line(chunk, start, end)
      } else {
        pending.push(chunk.subarray(start, end))
        const whole = Buffer.concat(pending, pendingBytes + end - start)
        pending = []
        pendingBytes = 0
        over = line(whole, 0, whole.length)
      }
      if (over) return overflow("event")
      start = end + 1
      if (end === cr) {
        if (start === chunk.length) afterCr = true
        else if (chunk[start] === LF) start++
      }
    }
    if (start < chunk.length) {
      pendingBytes += chunk.length - start
      if (pendingBytes > maxLineBytes) return overflow("line")
      pending.push(chunk.slice(start))
    }
    return events({ data: found, names })
  }
  return { push }
}

/** Bounds that hold any test's stream. */
const unbounded: EventStreamLimits = { maxLineBytes: Number.MAX_SAFE_INTEGER, maxEventBytes: Number.MAX_SAFE_INTEGER }

/**
 * The events of a whole event stream, given as its text or as the chunks it came in: what the live
 * reader dispatches from the same bytes, or what went over `limits`.
 */
export const eventsOf = (
  stream: string | ReadonlyArray<Uint8Array>,
  limits: EventStreamLimits = unbounded
): Either.Either<ReadonlyArray<StreamEvent>, Overflow> => {
  const all: Array<StreamEvent> = []
  const reader = eventReader<Overflow | undefined>(limits, ({ data, names }) => {
    data.forEach((d, i) => all.push({ data: d, event: names?.[i] }))
    return undefined
  }, (what) => what)
  const chunks = typeof stream === "string" ? [Buffer.from(stream, "utf8")] : stream
  for (const chunk of chunks) {
    const over = reader.push(chunk)
    if (over !== undefined) return Either.left(over)
  }
  return Either.right(all)
}
