/**
 * `inert`, the one way untrusted text reaches a terminal or a log: what could break a line, move the
 * cursor, reorder or hide text is shown as `\n`, `\r`, `\t` or the `\uXXXX` of each code unit, the forms
 * JSON writes. Pure, and imported by every module that quotes input: the schema's messages, the runner,
 * the reporters and the commands.
 */

// What a terminal or a log reader would act on, or hide, instead of showing: every control character
// (C0 with CR, LF and TAB, DEL, C1 with NEL), the line and paragraph separators, every format character
// (bidi embeddings, overrides and isolates, U+061C, zero-width characters, U+FEFF, tags) and the half
// of a surrogate pair.
const unsafe = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]$/u

// Joiners inside an emoji sequence (a family, a profession) draw one picture and are kept.
const pictographBefore = /\p{Extended_Pictographic}(?:\u{fe0f}|[\u{1f3fb}-\u{1f3ff}])?$/u
const pictographAfter = /^\p{Extended_Pictographic}/u

const shortForms: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" }

// Each code unit as a JSON escape, so the form cannot be mistaken for anything but the character, and
// JSON text made inert still reads back as the same value.
const escaped = (character: string): string =>
  shortForms[character] ??
    character.split("").map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")

/**
 * The text with each unsafe character escaped. Its code units are scanned one by one: printable ASCII,
 * most of any text, is passed over at once, and only another character is looked up (a pair of
 * surrogates as one character), so a 20 MB results file costs one pass and no copy when it holds
 * nothing to escape.
 */
const escapeUnsafe = (keepLineFeeds: boolean) => (text: string): string => {
  let parts: Array<string> | undefined
  let from = 0
  for (let at = 0; at < text.length; at++) {
    const unit = text.charCodeAt(at)
    if ((unit >= 0x20 && unit < 0x7f) || (unit === 0x0a && keepLineFeeds)) continue
    const pair = unit >= 0xd800 && unit <= 0xdbff && at + 1 < text.length &&
      (text.charCodeAt(at + 1) & 0xfc00) === 0xdc00
    const character = pair ? text.slice(at, at + 2) : text[at]!
    const next = at + character.length
    const safe = (unit >= 0xa0 && !unsafe.test(character)) ||
      (character === "\u200d" && pictographBefore.test(text.slice(Math.max(0, at - 4), at)) &&
        pictographAfter.test(text.slice(next, next + 2)))
    if (!safe) {
      ;(parts ??= []).push(text.slice(from, at), escaped(character))
      from = next
    }
    at = next - 1
  }
  return parts === undefined ? text : `${parts.join("")}${text.slice(from)}`
}

/**
 * Untrusted text made safe to print on one line of a terminal or a CI log: every character that would
 * break the line, move the cursor, reorder or hide text is shown as its escape — `\n`, `\r`, `\t`, and
 * `\uXXXX` for each UTF-16 code unit of the rest (`\u202e`, `\ufeff`, `\u001b`) — so a printed line
 * always starts with text the product wrote. Letters of any script and emoji are kept; text that is
 * already safe is returned as it is, so applying it twice changes nothing.
 */
export const inert = escapeUnsafe(false)

/**
 * `inert` for multi-line text the product itself laid out (JSON it rendered, with untrusted strings
 * already escaped inside): line feeds are kept, everything else `inert` escapes is escaped alike. JSON
 * text stays JSON of the same value.
 */
export const inertLines = escapeUnsafe(true)
