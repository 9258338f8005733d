/**
 * OTLP JSON attribute values (`AnyValue`) as plain values: `stringValue`, `intValue` (a number, or a
 * string of digits as protobuf's JSON mapping writes 64-bit integers), `doubleValue` (a number, or
 * `"NaN"`, `"Infinity"`, `"-Infinity"`), `boolValue`, `bytesValue` (kept as its base64 text),
 * `arrayValue` and `kvlistValue`. An empty value is `null`.
 */
import { Either } from "effect"
import { isRecord } from "../Schema/Decode.js"

/** A decoded attribute value. */
export type AttributeValue =
  | string
  | number
  | boolean
  | null
  | ReadonlyArray<AttributeValue>
  | { readonly [key: string]: AttributeValue }

/** Why a value could not be decoded: where inside it (`.arrayValue.values[2]`) and what was expected. */
export interface ValueProblem {
  readonly at: string
  readonly message: string
}

const kinds = "stringValue, intValue, doubleValue, boolValue, arrayValue, kvlistValue or bytesValue"

const got = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 60)}…` : text
}

/** A 64-bit integer: a number when it is exact in JavaScript, else its decimal text. */
const decodeInt = (value: unknown): Either.Either<number | string, string> => {
  if (typeof value === "number" && Number.isInteger(value)) return Either.right(value)
  if (typeof value === "string" && /^-?\d{1,20}$/.test(value)) {
    const n = Number(value)
    return Either.right(Number.isSafeInteger(n) ? n : value)
  }
  return Either.left(`expected an integer (a number or a string of digits), got ${got(value)}`)
}

const decodeDouble = (value: unknown): Either.Either<number, string> => {
  if (typeof value === "number") return Either.right(value)
  if (value === "NaN") return Either.right(Number.NaN)
  if (value === "Infinity") return Either.right(Number.POSITIVE_INFINITY)
  if (value === "-Infinity") return Either.right(Number.NEGATIVE_INFINITY)
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) {
    return Either.right(Number(value))
  }
  return Either.left(`expected a number, got ${got(value)}`)
}

/** Nesting of array and key-value list values beyond which a value is refused (no exporter writes it). */
const maxNesting = 64

/** Decodes one `AnyValue`; a problem says where inside it and what was expected. */
export const decodeAnyValue = (value: unknown, depth = 0): Either.Either<AttributeValue, ValueProblem> => {
  if (value === undefined || value === null) return Either.right(null)
  if (!isRecord(value)) {
    return Either.left({ at: "", message: `expected an object holding one of ${kinds}, got ${got(value)}` })
  }
  if (depth > maxNesting) return Either.left({ at: "", message: `nested more than ${maxNesting} levels deep` })
  const at = (key: string) => (message: string): ValueProblem => ({ at: `.${key}`, message })
  if ("stringValue" in value) {
    return typeof value["stringValue"] === "string"
      ? Either.right(value["stringValue"])
      : Either.left(at("stringValue")(`expected a string, got ${got(value["stringValue"])}`))
  }
  if ("intValue" in value) return Either.mapLeft(decodeInt(value["intValue"]), at("intValue"))
  if ("doubleValue" in value) return Either.mapLeft(decodeDouble(value["doubleValue"]), at("doubleValue"))
  if ("boolValue" in value) {
    return typeof value["boolValue"] === "boolean"
      ? Either.right(value["boolValue"])
      : Either.left(at("boolValue")(`expected true or false, got ${got(value["boolValue"])}`))
  }
  if ("bytesValue" in value) {
    return typeof value["bytesValue"] === "string"
      ? Either.right(value["bytesValue"])
      : Either.left(at("bytesValue")(`expected base64 text, got ${got(value["bytesValue"])}`))
  }
  if ("arrayValue" in value) {
    const array = value["arrayValue"]
    const values = isRecord(array) ? array["values"] ?? [] : undefined
    if (!Array.isArray(values)) {
      return Either.left(at("arrayValue")(`expected {"values": [...]}, got ${got(array)}`))
    }
    const out: Array<AttributeValue> = []
    for (let i = 0; i < values.length; i++) {
      const item = decodeAnyValue(values[i], depth + 1)
      if (Either.isLeft(item)) {
        return Either.left({ at: `.arrayValue.values[${i}]${item.left.at}`, message: item.left.message })
      }
      out.push(item.right)
    }
    return Either.right(out)
  }
  if ("kvlistValue" in value) {
    const list = value["kvlistValue"]
    const values = isRecord(list) ? list["values"] ?? [] : undefined
    if (!Array.isArray(values)) {
      return Either.left(at("kvlistValue")(`expected {"values": [{"key", "value"}, ...]}, got ${got(list)}`))
    }
    const out: Record<string, AttributeValue> = {}
    for (let i = 0; i < values.length; i++) {
      const entry: unknown = values[i]
      if (!isRecord(entry) || typeof entry["key"] !== "string") {
        return Either.left({ at: `.kvlistValue.values[${i}]`, message: `expected {"key", "value"}, got ${got(entry)}` })
      }
      const item = decodeAnyValue(entry["value"], depth + 1)
      if (Either.isLeft(item)) {
        return Either.left({ at: `.kvlistValue.values[${i}].value${item.left.at}`, message: item.left.message })
      }
      Object.defineProperty(out, entry["key"], {
        value: item.right,
        enumerable: true,
        writable: true,
        configurable: true
      })
    }
    return Either.right(out)
  }
  if (Object.keys(value).length === 0) return Either.right(null)
  return Either.left({ at: "", message: `expected one of ${kinds}, got ${got(value)}` })
}

/** An attribute as text: a string as it is, a number or boolean written out; anything else is absent. */
export const attributeText = (value: AttributeValue | undefined): string | undefined =>
  typeof value === "string"
    ? value
    : typeof value === "number" || typeof value === "boolean"
    ? String(value)
    : undefined

/** An attribute's value with JSON text parsed; text that is not JSON stays text. */
export const parseMaybeJson = (value: AttributeValue | undefined): unknown => {
  if (typeof value !== "string") return value ?? undefined
  const trimmed = value.trim()
  if (!/^[[{"]/.test(trimmed) && !/^(?:-?\d|true$|false$|null$)/.test(trimmed)) return value
  try {
    return JSON.parse(trimmed)
  } catch {
    return value
  }
}

/** The first line of an error message: some instrumentations append the stack after it. */
export const firstLine = (message: string): string => message.trim().split(/\r?\n/, 1)[0]!.trim()
