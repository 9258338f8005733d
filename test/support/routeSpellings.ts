/**
 * Ways a route in a catalog (or a journal) can be written that would take a run's requests, and the
 * session they carry, off the app: to another host (`//host/…` and the forms a URL parser reads as
 * it), or out of the base URL's path (`..` segments, percent-encoded or not, and `\`). Each comes with
 * the words a refusal gives for it. And routes that look alike but stay on the app, which must be sent.
 */
import { Effect, Exit, Redacted, Scope } from "effect"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { openJournal, stateFolder } from "../../src/Runner/Journal.js"
import { quoted } from "../../src/Schema/Shown.js"

/** A spelling of a route that must be refused. */
export interface Spelling {
  readonly name: string
  /** The path, naming `host` (`127.0.0.1:PORT`) where the spelling names a host. */
  readonly path: (host: string) => string
  /** What the refusal says of the path, after "it ". */
  readonly why: string
  /** Where the path would have taken the request: to another host, or out of the base URL's path. */
  readonly leaves: "origin" | "path"
}

const twoSlashes = (start: string) => `starts with ${JSON.stringify(start)}, which names another host`
const control = (code: string) => `holds a control character (U+${code}), which a URL drops or cannot carry`
const dotSegment = `holds a "." or ".." segment (percent-encoded or not), which would leave the base URL's path`

/** The spellings every test of the rule tries. */
export const spellings: ReadonlyArray<Spelling> = [
  { name: "//host", path: (host) => `//${host}/api`, why: twoSlashes("//"), leaves: "origin" },
  { name: "/\\host", path: (host) => `/\\${host}/api`, why: twoSlashes("/\\"), leaves: "origin" },
  { name: "/ newline /host", path: (host) => `/\n/${host}/api`, why: control("000A"), leaves: "origin" },
  { name: "/ tab /host", path: (host) => `/\t/${host}/api`, why: control("0009"), leaves: "origin" },
  { name: "/ CR /host", path: (host) => `/\r/${host}/api`, why: control("000D"), leaves: "origin" },
  { name: "//user@host", path: (host) => `//eval@${host}/api`, why: twoSlashes("//"), leaves: "origin" },
  { name: "\\\\host", path: (host) => `\\\\${host}/api`, why: `does not start with "/"`, leaves: "origin" },
  { name: "/..", path: () => "/../api", why: dotSegment, leaves: "path" },
  { name: "/%2e%2e", path: () => "/%2e%2e/api", why: dotSegment, leaves: "path" },
  { name: "/%2E.", path: () => "/%2E./api", why: dotSegment, leaves: "path" },
  { name: "/./..", path: () => "/./../api", why: dotSegment, leaves: "path" },
  { name: "..%2f", path: () => "/api/..%2f..%2fapi", why: dotSegment, leaves: "path" },
  { name: "%252e%252e", path: () => "/%252e%252e/api", why: dotSegment, leaves: "path" },
  { name: "\\..\\", path: () => "/api\\..\\..\\api", why: `holds "\\", which a URL reads as "/"`, leaves: "path" },
  { name: "#", path: () => "/api#/../..", why: `holds "#": a fragment never reaches the app`, leaves: "path" }
]

/** Routes that name a host or dots only where they cannot move the request: each is sent to the app, under its path. */
export const staying: ReadonlyArray<(host: string) => string> = [
  (host) => `/api?next=//${host}/x`,
  (host) => `/@${host}/x`,
  (host) => `/api/%2F%2F${host}/x`,
  () => "/api?x=/../../",
  () => "/api/a..b/.x/..."
]

/** The catalog fields a route is spelled in, as `validateMessage` names them. */
export type SpelledField = "endpoint" | "conversation" | "trace" | "delete" | "ratings"

/** What `validate` says of a field holding `value`: a path that would leave the app, or (with no leading "/") not a path. */
export const validateMessage = (spelling: Spelling, field: SpelledField, value: string): string => {
  if (spelling.why !== `does not start with "/"`) {
    return `expected a path on the app's origin, under the base URL's path, got ${quoted(value)}: it ${spelling.why}`
  }
  return field === "endpoint"
    ? `expected a path starting with "/", got ${quoted(value)}`
    : field === "ratings"
    ? `expected a path starting with "/" (a query is allowed), got ${quoted(value)}`
    : `expected a path starting with "/" that holds ${field === "trace" ? "{turnId}" : "{conversationId}"}, got ${
      quoted(value)
    }`
}

/**
 * The journal a run killed with kill -9 would leave under `state`: conversation `conv-{i}` of case
 * `case-{i}` per spelling, each with its delete route spelled so against `host`, written by a run that
 * has ended (a process id no process holds). Gives the journal file.
 */
export const journalSpelledDeletes = async (
  baseUrl: string,
  session: string,
  state: string,
  host: string
): Promise<string> => {
  const scope = Effect.runSync(Scope.make())
  const journal = await Effect.runPromise(Scope.extend(
    openJournal({
      baseUrl: new URL(baseUrl),
      session: Redacted.make(session),
      deleteRoute: "/api/ai/conversations/{conversationId}",
      folder: stateFolder({ XDG_STATE_HOME: state }),
      warn: (text) => {
        throw new Error(text)
      }
    }),
    scope
  ))
  for (const [i, spelling] of spellings.entries()) {
    await Effect.runPromise(journal.opened(`case-${i}`, `conv-${i}`, `${spelling.path(host)}/{conversationId}`))
  }
  await Effect.runPromise(Scope.close(scope, Exit.void))
  const files = readdirSync(state, { recursive: true, withFileTypes: true }).filter((e) => e.name.endsWith(".jsonl"))
  if (files.length !== 1) throw new Error(`expected one journal file, found ${files.length}`)
  const file = join(files[0]!.parentPath, files[0]!.name)
  writeFileSync(file, readFileSync(file, "utf8").replace(/"pid":\d+/, "\"pid\":2147483646"))
  return file
}
