/**
 * Reading OTLP JSON trace files as exporters and collectors write them — `{"resourceSpans": [...]}`,
 * one document per file or one per line — into traces whose spans are ordered parent first. Siblings
 * follow their start times; spans that start at the same instant (some libraries round start times to
 * the millisecond) keep the order they were read in.
 */
import { Either, Schema } from "effect"
import { decodeValue, parseJson } from "../Schema/Decode.js"
import { BadInput, type Problem } from "../Schema/Errors.js"
import { quoted } from "../Schema/Shown.js"
import { type AttributeValue, decodeAnyValue } from "./Attributes.js"

const hexId = (digits: number, what: string) => {
  const pattern = new RegExp(`^[0-9a-fA-F]{${digits}}$`)
  return Schema.String.pipe(
    Schema.filter((s) => pattern.test(s), {
      message: (issue) =>
        `expected a ${what} of ${digits} hex digits, got ${JSON.stringify(String(issue.actual).slice(0, 60))}`
    })
  )
}

const Nanos = Schema.Union(
  Schema.String.pipe(
    Schema.filter((s) => /^\d{1,20}$/.test(s), {
      message: () => "expected nanoseconds since the epoch, as a string of digits"
    })
  ),
  Schema.Number.pipe(
    Schema.filter((n) => Number.isInteger(n) && n >= 0, { message: () => "expected nanoseconds since the epoch" })
  )
)

const KeyValue = Schema.Struct({ key: Schema.String, value: Schema.optionalWith(Schema.Unknown, { exact: true }) })

const StatusCode = Schema.Literal(0, 1, 2, "STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR")

const SpanJson = Schema.Struct({
  traceId: hexId(32, "trace id"),
  spanId: hexId(16, "span id"),
  parentSpanId: Schema.optionalWith(Schema.String, { exact: true }),
  name: Schema.String,
  startTimeUnixNano: Nanos,
  endTimeUnixNano: Schema.optionalWith(Nanos, { exact: true }),
  attributes: Schema.optionalWith(Schema.Array(KeyValue), { exact: true }),
  events: Schema.optionalWith(
    Schema.Array(Schema.Struct({
      name: Schema.String,
      timeUnixNano: Schema.optionalWith(Nanos, { exact: true }),
      attributes: Schema.optionalWith(Schema.Array(KeyValue), { exact: true })
    })),
    { exact: true }
  ),
  status: Schema.optionalWith(
    Schema.Struct({
      code: Schema.optionalWith(StatusCode, { exact: true }),
      message: Schema.optionalWith(Schema.String, { exact: true })
    }),
    { exact: true }
  )
})

/** One OTLP JSON document (`ExportTraceServiceRequest`), read leniently: fields beyond these are ignored. */
const OtlpDocument = Schema.Struct({
  resourceSpans: Schema.Array(Schema.Struct({
    scopeSpans: Schema.optionalWith(
      Schema.Array(Schema.Struct({ spans: Schema.optionalWith(Schema.Array(SpanJson), { exact: true }) })),
      { exact: true }
    )
  }))
})

/** An event of a span (`exception` holds an error's message). */
export interface SpanEvent {
  readonly name: string
  readonly attributes: ReadonlyMap<string, AttributeValue>
}

/** A span, its attributes decoded. */
export interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly name: string
  readonly start: bigint
  readonly end: bigint | undefined
  readonly attributes: ReadonlyMap<string, AttributeValue>
  readonly events: ReadonlyArray<SpanEvent>
  readonly status: "unset" | "ok" | "error"
  readonly statusMessage: string | undefined
  /** The file it was read from. */
  readonly file: string
  /** Its place in the order spans were read in, across files. */
  readonly seq: number
}

/** The spans of one trace, parent first. */
export interface Trace {
  readonly traceId: string
  /** Every span, parent before child, siblings by start time (ties in the order read). */
  readonly spans: ReadonlyArray<Span>
  readonly byId: ReadonlyMap<string, Span>
  /** A span's children, by start time. */
  readonly children: (span: Span) => ReadonlyArray<Span>
}

const statusOf = (code: typeof StatusCode.Type | undefined): Span["status"] =>
  code === 2 || code === "STATUS_CODE_ERROR" ? "error" : code === 1 || code === "STATUS_CODE_OK" ? "ok" : "unset"

const decodeAttributes = (
  list: ReadonlyArray<typeof KeyValue.Type> | undefined,
  at: string,
  problems: Array<Problem>
): ReadonlyMap<string, AttributeValue> => {
  const attributes = new Map<string, AttributeValue>()
  list?.forEach((kv, i) => {
    const value = decodeAnyValue(kv.value)
    if (Either.isLeft(value)) {
      problems.push({
        path: `${at}.attributes[${i}].value${value.left.at}`,
        message: `attribute ${quoted(kv.key)}: ${value.left.message}`
      })
    } else attributes.set(kv.key, value.right)
  })
  return attributes
}

/** The documents of a file: the whole text as one, or one per line when it is not one (JSON lines). */
const documentsOf = (
  file: string,
  text: string
): Either.Either<ReadonlyArray<{ value: unknown; line?: number }>, BadInput> => {
  const whole = parseJson(file, text)
  if (Either.isRight(whole)) return Either.right([{ value: whole.right }])
  const lines = text.split(/\r?\n/)
  if (lines.filter((l) => l.trim() !== "").length < 2) return Either.left(whole.left)
  const documents: Array<{ value: unknown; line: number }> = []
  const problems: Array<Problem> = []
  lines.forEach((line, i) => {
    if (line.trim() === "") return
    const parsed = parseJson(file, line)
    if (Either.isLeft(parsed)) {
      problems.push(...parsed.left.problems.map((p) => ({ path: `line ${i + 1}`, message: p.message })))
    } else documents.push({ value: parsed.right, line: i + 1 })
  })
  return problems.length > 0 ? Either.left(new BadInput({ file, problems })) : Either.right(documents)
}

/** Reads the spans of one OTLP JSON file (a document, or JSON lines of documents); `seq` numbers them on from `firstSeq`. */
export const readSpans = (file: string, text: string, firstSeq = 0): Either.Either<ReadonlyArray<Span>, BadInput> =>
  Either.flatMap(documentsOf(file, text), (documents) => {
    const spans: Array<Span> = []
    const problems: Array<Problem> = []
    for (const document of documents) {
      const where = document.line === undefined ? "" : `line ${document.line}: `
      const decoded = decodeValue(OtlpDocument, file, document.value, "lenient")
      if (Either.isLeft(decoded)) {
        problems.push(...decoded.left.problems.map((p) => ({ path: `${where}${p.path}`, message: p.message })))
        continue
      }
      decoded.right.resourceSpans.forEach((resource, r) =>
        resource.scopeSpans?.forEach((scope, s) =>
          scope.spans?.forEach((span, k) => {
            const at = `${where}$.resourceSpans[${r}].scopeSpans[${s}].spans[${k}]`
            const events = (span.events ?? []).map((event, e) => ({
              name: event.name,
              attributes: decodeAttributes(event.attributes, `${at}.events[${e}]`, problems)
            }))
            spans.push({
              traceId: span.traceId.toLowerCase(),
              spanId: span.spanId.toLowerCase(),
              parentSpanId: span.parentSpanId === undefined || span.parentSpanId === ""
                ? undefined
                : span.parentSpanId.toLowerCase(),
              name: span.name,
              start: BigInt(span.startTimeUnixNano),
              end: span.endTimeUnixNano === undefined ? undefined : BigInt(span.endTimeUnixNano),
              attributes: decodeAttributes(span.attributes, at, problems),
              events,
              status: statusOf(span.status?.code),
              statusMessage: span.status?.message === "" ? undefined : span.status?.message,
              file,
              seq: firstSeq + spans.length
            })
          })
        )
      )
    }
    if (problems.length > 0) return Either.left(new BadInput({ file, problems }))
    if (spans.length === 0) {
      return Either.left(
        new BadInput({
          file,
          problems: [{ path: "", message: "no spans: expected OTLP JSON trace data, {\"resourceSpans\": [...]}" }]
        })
      )
    }
    return Either.right(spans)
  })

const byStart = (a: Span, b: Span): number => a.start < b.start ? -1 : a.start > b.start ? 1 : a.seq - b.seq

/**
 * Groups spans by trace and orders each trace parent first. A span whose parent is not among them
 * starts a tree of its own; a span id used twice, or parents that form a loop, are bad input naming
 * the trace.
 */
export const groupTraces = (spans: ReadonlyArray<Span>): Either.Either<ReadonlyArray<Trace>, BadInput> => {
  const byTrace = new Map<string, Array<Span>>()
  for (const span of spans) {
    const list = byTrace.get(span.traceId)
    if (list === undefined) byTrace.set(span.traceId, [span])
    else list.push(span)
  }
  const traces: Array<Trace> = []
  for (const [traceId, list] of byTrace) {
    const byId = new Map<string, Span>()
    for (const span of list) {
      if (byId.has(span.spanId)) {
        return Either.left(
          new BadInput({
            file: span.file,
            problems: [{
              path: `trace ${traceId}`,
              message: `span ${span.spanId} appears twice (${quoted(span.name)})`
            }]
          })
        )
      }
      byId.set(span.spanId, span)
    }
    const childrenOf = new Map<string, Array<Span>>()
    const roots: Array<Span> = []
    for (const span of list) {
      const parent = span.parentSpanId
      if (parent === undefined || !byId.has(parent)) roots.push(span)
      else {
        const siblings = childrenOf.get(parent)
        if (siblings === undefined) childrenOf.set(parent, [span])
        else siblings.push(span)
      }
    }
    roots.sort(byStart)
    for (const siblings of childrenOf.values()) siblings.sort(byStart)
    const ordered: Array<Span> = []
    const stack = [...roots].reverse()
    while (stack.length > 0) {
      const span = stack.pop()!
      ordered.push(span)
      const children = childrenOf.get(span.spanId) ?? []
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!)
    }
    if (ordered.length < list.length) {
      const seen = new Set(ordered)
      const looped = list.filter((s) => !seen.has(s))
      return Either.left(
        new BadInput({
          file: looped[0]!.file,
          problems: [{
            path: `trace ${traceId}`,
            message: `the parentSpanId of spans ${looped.slice(0, 5).map((s) => s.spanId).join(", ")} form a loop`
          }]
        })
      )
    }
    traces.push({ traceId, spans: ordered, byId, children: (span) => childrenOf.get(span.spanId) ?? [] })
  }
  return Either.right(traces)
}
