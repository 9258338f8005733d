/**
 * The event-stream reader against the WHATWG standard's interpretation of an event stream, and against
 * the AI SDK's own parser (`parseJsonEventStream`) on generated streams, split into chunks anywhere.
 */
import { describe, expect, it } from "@effect/vitest"
import { parseJsonEventStream } from "ai"
import { Either, FastCheck as fc } from "effect"
import { z } from "zod"
import { eventReader, eventsOf, type StreamEvent } from "../../src/Runner/EventStream.js"

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text)

/** The stream's bytes one at a time. */
const byteByByte = (text: string): ReadonlyArray<Uint8Array> => [...bytesOf(text)].map((b) => Uint8Array.of(b))

/** The events of `text` read whole, asserting that a byte at a time reads the same. */
const read = (text: string): ReadonlyArray<StreamEvent> => {
  const whole = Either.getOrThrow(eventsOf(text))
  expect(eventsOf(byteByByte(text))).toEqual(Either.right(whole))
  return whole
}
const data = (text: string): ReadonlyArray<string> => read(text).map((e) => e.data)

describe("the event-stream reader", () => {
  it("joins an event's data lines with LF, dispatching at the blank line", () => {
    expect(data("data: {\ndata: \"type\":\"start\"}\n\n")).toEqual(["{\n\"type\":\"start\"}"])
    expect(JSON.parse(data("data: {\ndata: \"type\":\"start\"}\n\n")[0]!)).toEqual({ type: "start" })
    expect(data("data: a\ndata:\ndata: b\n\ndata: c\n\n")).toEqual(["a\n\nb", "c"])
  })

  it("ends lines at LF, CR and CRLF, a CRLF split across chunks being one line end", () => {
    for (const end of ["\n", "\r", "\r\n"]) {
      expect(data(`data: 1${end}data: 2${end}${end}data: 3${end}${end}`)).toEqual(["1\n2", "3"])
    }
    expect(data("data: 1\r\n\rdata: 2\n\r\n")).toEqual(["1", "2"])
    expect(
      Either.map(
        eventsOf([bytesOf("data: 1\r"), bytesOf("\ndata: 2\r\n\r"), bytesOf("\n")]),
        (es) => es.map((e) => e.data)
      )
    ).toEqual(Either.right(["1\n2"]))
  })

  it("strips one leading space of a value, not two, and nothing else", () => {
    expect(data("data:  two spaces \n\ndata:none\n\ndata:\ttab\n\n")).toEqual([" two spaces ", "none", "\ttab"])
  })

  it("ignores comments and the id, retry and unknown fields; keeps the event field's value", () => {
    const stream = [
      ": a comment",
      ":",
      "id: 7",
      "retry: 1000",
      "event: metadata",
      "other: x",
      "Data: not data",
      "data: 1",
      "",
      "event:",
      "data: 2",
      "",
      "data: 3",
      "",
      ""
    ].join("\n")
    expect(read(stream)).toEqual([
      { data: "1", event: "metadata" },
      { data: "2", event: "" },
      { data: "3", event: undefined }
    ])
  })

  it("takes a field named alone as having an empty value, and dispatches no event without data", () => {
    expect(data("data\n\ndata\ndata\n\n")).toEqual(["", "\n"])
    expect(data("event: x\nid: 1\n\n: only a comment\n\n\n\n")).toEqual([])
    // The event field of an event that had no data is not carried into the next.
    expect(read("event: x\n\ndata: 1\n\n")).toEqual([{ data: "1", event: undefined }])
  })

  it("does not dispatch an event the stream ends inside, as the AI SDK's parser does not", async () => {
    const cut = "data: {\"n\":1}\n\ndata: {\"n\":2}\n"
    expect(data(cut)).toEqual(["{\"n\":1}"])
    expect(data(`${cut}data: {"n":3}`)).toEqual(["{\"n\":1}"])
    expect(await libraryData(cut)).toEqual([{ n: 1 }])
  })

  it("ends the last line at a CR the stream ends with, where the AI SDK's parser waits for an LF", async () => {
    // The standard ends a line at a CR; the library never learns whether an LF follows, so it drops the event.
    expect(data("data: {\"n\":1}\r\r")).toEqual(["{\"n\":1}"])
    expect(await libraryData("data: {\"n\":1}\r\r")).toEqual([])
    expect(await libraryData("data: {\"n\":1}\r\r\n")).toEqual([{ n: 1 }])
  })

  it("drops the byte-order mark a stream starts with, and keeps one in a value", () => {
    expect(data("\uFEFFdata: 1\n\ndata: \uFEFF2\n\n")).toEqual(["1", "\uFEFF2"])
    expect(data("\uFEFF\ndata: 1\n\n")).toEqual(["1"])
  })

  it("decodes UTF-8 split anywhere, a character across chunks included", () => {
    expect(data("data: héllo ☃ 𝄞\n\n")).toEqual(["héllo ☃ 𝄞"])
  })

  it("refuses a line over its bound, ended or not, before holding it whole", () => {
    const limits = { maxLineBytes: 10, maxEventBytes: 100 }
    expect(eventsOf("data: 1234\n\n", limits)).toEqual(Either.right([{ data: "1234", event: undefined }]))
    expect(eventsOf("data: 12345\n\n", limits)).toEqual(Either.left("line"))
    expect(eventsOf(": a long comment\n\n", limits)).toEqual(Either.left("line"))
    expect(eventsOf(byteByByte("data: 12345"), limits)).toEqual(Either.left("line"))
    // The first byte past the bound is refused: the reader holds no more than the bound.
    let pushed = 0
    const reader = eventReader({ maxLineBytes: 10, maxEventBytes: 100 }, () => undefined, (what) => what)
    for (const chunk of byteByByte("data: 12345678")) {
      pushed++
      if (reader.push(chunk) !== undefined) break
    }
    expect(pushed).toBe(11)
  })

  it("refuses an event whose data lines together go over its bound, LFs that join them counted", () => {
    const limits = { maxLineBytes: 100, maxEventBytes: 9 }
    expect(eventsOf("data: 1234\ndata: 1234\n\n", limits)).toEqual(
      Either.right([{ data: "1234\n1234", event: undefined }])
    )
    expect(eventsOf("data: 1234\ndata: 12345\n\n", limits)).toEqual(Either.left("event"))
    expect(eventsOf(byteByByte("data: 1234\ndata: 12345\n"), limits)).toEqual(Either.left("event"))
    expect(eventsOf("data: 1234567890\n\n", limits)).toEqual(Either.left("event"))
    // Many small events are no large one: the bound is per event.
    expect(Either.map(eventsOf("data: 12345\n\n".repeat(50), limits), (es) => es.length)).toEqual(Either.right(50))
  })

  it("hands the events a chunk completes once for the chunk, none when it completes none", () => {
    const handed: Array<ReadonlyArray<string>> = []
    const reader = eventReader({ maxLineBytes: 100, maxEventBytes: 100 }, ({ data }) => {
      handed.push(data)
    }, () => undefined)
    for (const chunk of ["data: 1\n\nda", "ta: 2\n", "\ndata: 3\n\ndata: 4\n\n"]) reader.push(bytesOf(chunk))
    expect(handed).toEqual([["1"], [], ["2", "3", "4"]])
  })
})

/** What the AI SDK's `parseJsonEventStream` reads from a stream's text: each event's data parsed as JSON. */
const libraryData = async (text: string): Promise<ReadonlyArray<unknown>> => {
  const parsed = parseJsonEventStream({ stream: new Response(text).body!, schema: z.unknown() })
  const values: Array<unknown> = []
  for await (const result of parsed) {
    if (!result.success) throw result.error
    values.push(result.value)
  }
  return values
}

/**
 * A JSON value the library parses: it refuses, by design, an object with a `__proto__` key or a
 * `constructor.prototype`, which is no stream's concern but its own.
 */
const parsable = fc.jsonValue().filter((value) => !/"(__proto__|constructor)":/.test(JSON.stringify(value)))

/** One event as a server might write it: JSON over several data lines, with comments and other fields about. */
const written = fc.record({
  value: parsable,
  indent: fc.constantFrom(0, 1, 2),
  space: fc.boolean(),
  before: fc.array(fc.constantFrom(": ping", ":", "id: 1", "retry: 500", "event: message", "event:", "x: y"), {
    maxLength: 3
  }),
  end: fc.constantFrom("\n", "\r", "\r\n")
})

const streamOf = (events: ReadonlyArray<typeof written extends fc.Arbitrary<infer A> ? A : never>): string =>
  events.map(({ before, end, indent, space, value }) =>
    [
      ...before,
      ...JSON.stringify(value, null, indent).split("\n").map((line) => `data:${space ? " " : ""}${line}`),
      ""
    ].map((line) => `${line}${end}`).join("")
  ).join("")

/** `bytes` cut at the given offsets. */
const cutAt = (bytes: Uint8Array, offsets: ReadonlyArray<number>): ReadonlyArray<Uint8Array> => {
  const at = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b)
  return [...at, bytes.length].map((end, i) => bytes.subarray(i === 0 ? 0 : at[i - 1]!, end))
}

describe("the event-stream reader and the AI SDK's parser", () => {
  it("read the same JSON values from any stream, cut into chunks anywhere", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(written, { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        async (events, offsets) => {
          const text = streamOf(events)
          const ours = Either.getOrThrow(eventsOf(cutAt(bytesOf(text), offsets))).map((e) =>
            JSON.parse(e.data) as unknown
          )
          // Through JSON and back, as the stream carries them (-0 is 0 there).
          expect(ours).toEqual(events.map((e) => JSON.parse(JSON.stringify(e.value)) as unknown))
          // The library holds a CR that ends its input as half of a CRLF to come (below).
          if (!text.endsWith("\r")) expect(ours).toEqual(await libraryData(text))
        }
      ),
      { numRuns: 300 }
    )
  })
})
