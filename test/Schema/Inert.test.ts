import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { inert, inertLines } from "../../src/Schema/Inert.js"

/** What no output of `inert` may hold: controls, format characters, line and paragraph separators, halves of pairs. */
const unsafe = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u
/** Text without the joiners `inert` keeps, those between two emoji. */
const withoutEmojiJoiners = (text: string) =>
  text.replace(
    /(?<=\p{Extended_Pictographic}(?:\u{fe0f}|[\u{1f3fb}-\u{1f3ff}])?)\u200d(?=\p{Extended_Pictographic})/gu,
    ""
  )

describe("inert", () => {
  it("shows line breaks and tabs as their escapes", () => {
    expect(inert("a\nb")).toBe("a\\nb")
    expect(inert("a\rb")).toBe("a\\rb")
    expect(inert("a\r\nb")).toBe("a\\r\\nb")
    expect(inert("a\tb")).toBe("a\\tb")
    expect(inert("a\u2028b\u2029c")).toBe("a\\u2028b\\u2029c")
    expect(inert("a\u0085b\u000bc\u000cd")).toBe("a\\u0085b\\u000bc\\u000cd")
  })

  it("shows every other control character, DEL and ANSI escapes as \\uXXXX", () => {
    expect(inert("\u0000\u0007\u0008\u001b[31mred\u001b[0m\u007f\u0080\u009f")).toBe(
      "\\u0000\\u0007\\u0008\\u001b[31mred\\u001b[0m\\u007f\\u0080\\u009f"
    )
  })

  it("shows bidi embeddings, overrides and isolates, and invisible format characters", () => {
    const bidi = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    expect(inert(bidi)).toBe("\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069")
    expect(inert("\ufeff\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\u061c\u00ad")).toBe(
      "\\ufeff\\u200b\\u200c\\u200d\\u200e\\u200f\\u2060\\u2061\\u2062\\u2063\\u2064\\u061c\\u00ad"
    )
    // A tag character, outside the basic plane, as the two code units JSON writes for it.
    expect(inert("flag\u{e0001}\u{e0067}")).toBe("flag\\udb40\\udc01\\udb40\\udc67")
  })

  it("shows half a surrogate pair, and keeps a whole one", () => {
    expect(inert("a\ud800b\udc00c")).toBe("a\\ud800b\\udc00c")
    expect(inert("\ud83d\ude00")).toBe("😀")
  })

  it("keeps letters of any script, symbols and emoji as they are", () => {
    const text =
      "é ñ ß Ωμέγα Привет 日本語 한국어 עברית العربية हिन्दी ✓ ✗ · → … 😀 ❤️ 👍🏽 👨‍👩‍👧 🧑‍💻 \\n, backslashes and \"quotes\""
    expect(inert(text)).toBe(text)
  })

  it("escapes a joiner that joins no emoji", () => {
    expect(inert("a\u200db")).toBe("a\\u200db")
    expect(inert("😀\u200d")).toBe("😀\\u200d")
  })

  it("leaves no unsafe character in any text (joiners inside emoji aside), and changes nothing the second time", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string16bits(), fc.fullUnicodeString(), fc.string()), (text) => {
        const once = inert(text)
        expect(withoutEmojiJoiners(once)).not.toMatch(unsafe)
        expect(inert(once)).toBe(once)
        expect(inertLines(once)).toBe(once)
      }),
      { numRuns: 500 }
    )
  })
})

/**
 * `inert` as one regular-expression replacement writes it: the reference the scan of code units must
 * agree with, character for character.
 */
const replaced = (keepLineFeeds: boolean) => (text: string): string =>
  text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu, (c, at: number) =>
    (keepLineFeeds && c === "\n") ||
      (c === "\u200d" &&
        /\p{Extended_Pictographic}(?:\u{fe0f}|[\u{1f3fb}-\u{1f3ff}])?$/u.test(text.slice(Math.max(0, at - 4), at)) &&
        /^\p{Extended_Pictographic}/u.test(text.slice(at + 1, at + 3)))
      ? c
      : ({ "\n": "\\n", "\r": "\\r", "\t": "\\t" } as Record<string, string>)[c] ??
        c.split("").map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""))

describe("inert and inertLines against one regular-expression replacement", () => {
  // Code units of every kind: ASCII, controls, C1, format and separator characters, lone and paired
  // surrogates, emoji with joiners.
  const units = fc.oneof(
    fc.string({ unit: "binary" }),
    fc.string({
      unit: fc.constantFrom(
        "a",
        "\n",
        "\r",
        "\t",
        "\u0000",
        "\u007f",
        "\u0085",
        "\u00ad",
        "\u200d",
        "\u202e",
        "\u2028",
        "\u2029",
        "\ufeff",
        "\ud83d",
        "\ude00",
        "\ud83d\ude00",
        "\u{e0041}",
        "\u{1f468}",
        "é",
        "→"
      )
    })
  )

  it("give the same text for any text", () => {
    fc.assert(
      fc.property(units, (text) => {
        expect(inert(text)).toBe(replaced(false)(text))
        expect(inertLines(text)).toBe(replaced(true)(text))
      }),
      { numRuns: 2000 }
    )
  })
})

describe("inertLines", () => {
  it("keeps line feeds and escapes the rest as inert does", () => {
    expect(inertLines("{\n  \"a\": 1\r\n}\t\u202e")).toBe("{\n  \"a\": 1\\r\n}\\t\\u202e")
  })

  it("keeps JSON text JSON of the same value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.fullUnicodeString(), (value, text) => {
        const document = { value, text, nested: [text, { [text]: text }] }
        const json = inertLines(JSON.stringify(document, null, 2))
        expect(withoutEmojiJoiners(json.replaceAll("\n", ""))).not.toMatch(unsafe)
        expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(document)))
      }),
      { numRuns: 300 }
    )
  })
})
