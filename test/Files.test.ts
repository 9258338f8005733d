import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Stream } from "effect"
import { boundedLines, namedInProject } from "../src/Files.js"

const bytes = (...chunks: ReadonlyArray<string>) => Stream.fromIterable(chunks.map((c) => new TextEncoder().encode(c)))
const lines = (max: number, ...chunks: ReadonlyArray<string>) =>
  bytes(...chunks).pipe(
    boundedLines(max, (n) => `line ${n} too long`),
    Stream.runCollect,
    Effect.map(Chunk.toArray),
    Effect.either
  )

describe("boundedLines", () => {
  it.effect("ends lines at LF, CRLF and CR, a CRLF split across chunks included, and keeps a last line without an end", () =>
    Effect.gen(function*() {
      expect(yield* lines(100, "a\nb\r\nc\rd")).toEqual(Either.right(["a", "b", "c", "d"]))
      expect(yield* lines(100, "a\r", "\nb\r", "c\n", "\n")).toEqual(Either.right(["a", "b", "c", ""]))
      expect(yield* lines(100, "é日", "本\n😀")).toEqual(Either.right(["é日本", "😀"]))
      // A multi-byte character cut between chunks is decoded whole.
      const cut = new TextEncoder().encode("日\n")
      const split = Stream.fromIterable([cut.slice(0, 1), cut.slice(1)]).pipe(
        boundedLines(10, () => "long"),
        Stream.runCollect
      )
      expect(Chunk.toArray(yield* split)).toEqual(["日"])
    }))

  it.effect("fails at the first line over the limit, naming it, before holding it whole", () =>
    Effect.gen(function*() {
      expect(yield* lines(3, "abc\nabcd\n")).toEqual(Either.left("line 2 too long"))
      expect(yield* lines(3, "ab", "cd")).toEqual(Either.left("line 1 too long"))
      expect(yield* lines(3, "abc")).toEqual(Either.right(["abc"]))
    }))
})

describe("a file as a shared report names it", () => {
  it("is relative to the project when inside it, else its name alone", () => {
    expect(namedInProject("/work/app/reports/old.json", "/work/app")).toBe("reports/old.json")
    expect(namedInProject("reports/old.json", "/work/app")).toBe("reports/old.json")
    expect(namedInProject("/tmp/elsewhere/old.json", "/work/app")).toBe("old.json")
    expect(namedInProject("../other/old.json", "/work/app")).toBe("old.json")
  })
})
