/**
 * `eval candidates` lists the turns users rated thumbs-down in a live app; `eval propose` drafts a
 * golden-set case from one of them — the facts the turn broke and the facts it held, each marked as
 * drafted — prints it, and with `--append` adds it to the golden set with the rated turn recorded, so
 * the new case fails offline until the assistant is fixed. Nothing is written without `--append`.
 */
import { FileSystem, Path } from "@effect/platform"
import { Console, Duration, Effect, Either, Option, type Redacted, Schema } from "effect"
import { parseBaseUrl, sessionAuth } from "../Application/Session.js"
import { readText, writeAtomically } from "../Files.js"
import { programName } from "../ProgramName.js"
import {
  appendCaseText,
  type ConversationDraft,
  type Draft,
  draftCase,
  draftConversation,
  type DraftedFact,
  renderCase
} from "../Propose/Draft.js"
import { loadCatalog, loadGoldenSet } from "../Runner/GoldenSet.js"
import { HttpLive } from "../Runner/Http.js"
import { makeLive } from "../Runner/LiveClient.js"
import { fixturePath } from "../Runner/SurfaceClient.js"
import { type Case, CaseId, CasesFile, fastCasesFile, isConversation, type StepAction } from "../Schema/Case.js"
import { decodeJson } from "../Schema/Decode.js"
import { BadInput, UsageError } from "../Schema/Errors.js"
import { inert, inertLines } from "../Schema/Inert.js"
import { Conversation, fillRoute, idProblem, type Message, Ratings, resolveRoutes } from "../Schema/Protocol.js"
import { shown } from "../Schema/Shown.js"
import type { Catalog } from "../Schema/Surface.js"
import { type RecordedConversation, type RecordedTurn, TurnTrace } from "../Schema/Trace.js"
import { caseProblems } from "../Schema/Validate.js"
import { plural } from "../Words.js"
import type { CandidatesArgs, ProposeArgs } from "./Options.js"

/** Bounds each read of the app, retries included. */
const readTimeout = Duration.seconds(30)

const maxComment = 200

/** A one-line, inert rendering of untrusted text from the app. */
const oneLine = (text: string, max: number): string => {
  const flat = text.replace(/[\t\n\r]+/g, " ").trim()
  return inert(flat.length > max ? `${flat.slice(0, max)}…` : flat)
}

/** An id from the app, quoted and inert, as a message shows it. */
const quoted = (id: string): string => JSON.stringify(inert(id.slice(0, 200)))

/** `1 fact`, `3 facts`. */

/**
 * Signs in to the app and reads its routes' JSON, each problem naming the route, its URL and the JSON
 * path. The HTTP client is provided around the whole command, so it outlives every read.
 */
const connect = (baseUrlText: string, cookieFlag: Option.Option<Redacted.Redacted<string>>, catalog: Catalog) =>
  Effect.gen(function*() {
    const baseUrl = yield* parseBaseUrl(baseUrlText)
    const auth = yield* sessionAuth(cookieFlag)
    const routes = resolveRoutes(catalog.routes)
    const live = yield* makeLive({
      baseUrl,
      auth,
      routes,
      timeout: readTimeout,
      deleteTimeout: readTimeout,
      keep: true
    })
    const prefix = baseUrl.pathname.replace(/\/+$/, "")
    const urlOf = (path: string) => inert(`${baseUrl.origin}${prefix}${path.startsWith("/") ? path : `/${path}`}`)
    /** Reads and decodes a route's JSON (keys beyond the schema are ignored, as for every read of an app). */
    const read = <A, I>(route: "ratings" | "conversation" | "trace", path: string, schema: Schema.Schema<A, I>) =>
      live.get(route, path).pipe(
        Effect.mapError((error) =>
          error._tag === "RunStopped" ? error : new UsageError({ message: `${error.message} (GET ${urlOf(path)})` })
        ),
        Effect.flatMap((text) =>
          Either.match(decodeJson(schema, `the ${route} route (GET ${urlOf(path)})`, text, "lenient"), {
            onLeft: Effect.fail,
            onRight: Effect.succeed
          })
        )
      )
    return { baseUrl: inert(baseUrlText), routes, read, ratingsUrl: urlOf(routes.ratings) }
  })

/** `eval candidates`: the thumbs-down turns of the signed-in account, one a line. */
export const candidatesHandler = (args: CandidatesArgs) =>
  Effect.gen(function*() {
    const catalog = yield* loadCatalog(args.surfaces)
    const app = yield* connect(args.baseUrl, args.cookie, catalog)
    const ratings = yield* app.read("ratings", app.routes.ratings, Ratings)
    if (ratings.length === 0) {
      yield* Console.log(`no thumbs-down turns at ${app.ratingsUrl}`)
      return
    }
    // Ids are clipped: the columns are padded to the longest, which must not swamp the list.
    const rows = ratings.map((r) =>
      [
        inert(shown(r.turnId)),
        inert(shown(r.conversationId)),
        r.comment === undefined || r.comment === null || r.comment.trim() === ""
          ? "(no comment)"
          : `"${oneLine(r.comment, maxComment)}"`
      ] as const
    )
    const turnWidth = Math.max("turn".length, ...rows.map(([turn]) => turn.length))
    const conversationWidth = Math.max("conversation".length, ...rows.map(([, conversation]) => conversation.length))
    yield* Console.log(
      [
        `${plural(ratings.length, "thumbs-down turn")} at ${app.ratingsUrl}:`,
        "",
        `  ${"turn".padEnd(turnWidth)}  ${"conversation".padEnd(conversationWidth)}  comment`,
        ...rows.map(([turn, conversation, comment]) =>
          `  ${turn.padEnd(turnWidth)}  ${conversation.padEnd(conversationWidth)}  ${comment}`
        ),
        "",
        `draft a case from one: ${programName} propose --turn TURN-ID --base-url ${app.baseUrl}`
      ].join("\n")
    )
  }).pipe(Effect.provide(HttpLive))

/** JSON with every object's keys sorted, to compare values whatever order their keys were written in. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v)

/** What a person said in a conversation, as a step writes it: a question, or the decision on a proposal. */
const saidBy = (message: Message): StepAction =>
  message.decision === undefined
    ? { ask: message.content }
    : message.decision.approved
    ? { approve: true }
    : { deny: message.decision.reason?.trim() ? message.decision.reason : "denied" }

/** A drafted case with what `--append` records for it, and how many facts its rated step was drafted with. */
interface Drafted {
  readonly case: Case
  readonly violated: ReadonlyArray<DraftedFact>
  readonly recording: RecordedTurn | RecordedConversation
  readonly rated: number
}

/** A one-question draft, its rated turn recorded. */
const ofQuestion = (draft: Draft, answer: string, trace: TurnTrace): Drafted => ({
  case: draft.case,
  violated: draft.violated,
  recording: { caseId: draft.case.id, question: draft.case.question, answer, trace },
  rated: draft.case.expect.length
})

/** A conversation's draft, its turns recorded in order, each with the step it answered. */
const ofConversation = (draft: ConversationDraft): Drafted => ({
  case: draft.case,
  violated: draft.violated,
  recording: {
    caseId: draft.case.id,
    turns: draft.turns.map((t) => ({ ...t.said, answer: t.answer, trace: t.trace }))
  },
  rated: draft.case.turns.at(-1)!.expect.length
})

/** Checks `--id` is a case id, as the cases file will. */
const checkId = (id: string): Effect.Effect<string, UsageError> =>
  Either.match(Schema.decodeUnknownEither(CaseId)(id), {
    onLeft: () =>
      Effect.fail(
        new UsageError({
          message: `--id ${
            JSON.stringify(inert(id.slice(0, 140)))
          }: expected a case id: lower-case letters, digits, ".", "_" or "-", starting with a letter or digit, at most 128 characters`
        })
      ),
    onRight: Effect.succeed
  })

/** `eval propose`: drafts a case from a rated turn; prints it, or with `--append` adds it and its recorded turn. */
export const proposeHandler = (args: ProposeArgs) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const turnId = args.turn
    const shownTurn = quoted(turnId)
    if (turnId.trim() === "") {
      return yield* new UsageError({ message: `--turn: expected a turn id (${programName} candidates lists them)` })
    }
    const explicitId = Option.isSome(args.id) ? yield* checkId(args.id.value) : undefined
    const set = yield* loadGoldenSet(args.cases, args.surfaces)
    const ids = new Set(set.cases.map((c) => c.id))
    if (explicitId !== undefined && ids.has(explicitId)) {
      return yield* new UsageError({
        message: `--id ${explicitId}: ${args.cases} already has a case with that id; choose another`
      })
    }

    // The rating, the conversation it points at, and the turn's trace.
    const app = yield* connect(args.baseUrl, args.cookie, set.catalog)
    const ratings = yield* app.read("ratings", app.routes.ratings, Ratings)
    const rating = ratings.find((r) => r.turnId === turnId)
    if (rating === undefined) {
      return yield* new UsageError({
        message: `turn ${shownTurn} is not among the ${
          plural(ratings.length, "thumbs-down turn")
        } at ${app.ratingsUrl} (${programName} candidates lists them)`
      })
    }
    // Ids from the app go into routes only when no route can be redirected by them.
    for (const [what, id] of [["turn", turnId], ["conversation", rating.conversationId]] as const) {
      const problem = idProblem(id)
      if (problem !== undefined) {
        return yield* new UsageError({
          message: `the rating names ${what} ${quoted(id)}, which ${problem}: no request is made with it`
        })
      }
    }
    const conversation = yield* app.read(
      "conversation",
      fillRoute(app.routes.conversation, { conversationId: rating.conversationId }),
      Conversation
    )
    const at = conversation.messages.findIndex((m) => m.role === "assistant" && m.turnId === turnId)
    const shownConversation = quoted(rating.conversationId)
    if (at < 0) {
      return yield* new UsageError({
        message: `conversation ${shownConversation} holds no assistant message for turn ${shownTurn}`
      })
    }
    const asked = conversation.messages.slice(0, at).reverse().find((m) => m.role === "user")
    if (asked === undefined || asked.content.trim() === "") {
      return yield* new UsageError({
        message: `conversation ${shownConversation} holds no question before the answer of turn ${shownTurn}`
      })
    }
    const trace = yield* app.read("trace", fillRoute(app.routes.trace, { turnId }), TurnTrace)
    if (trace.turnId !== turnId) {
      return yield* new UsageError({
        message: `the trace route answered with the trace of turn ${quoted(trace.turnId)}, not ${shownTurn}`
      })
    }
    const surface = Object.hasOwn(set.catalog.surfaces, trace.surface) ? set.catalog.surfaces[trace.surface] : undefined
    if (surface === undefined) {
      return yield* new UsageError({
        message: `turn ${shownTurn} is a turn of surface ${
          quoted(trace.surface)
        }, which ${args.surfaces} does not have; add it to the catalog first`
      })
    }

    // The draft: an id that is free in the set and among the recorded turns, unless --id names one.
    const recorded = yield* fs.readDirectory(args.fixtures).pipe(
      Effect.orElseSucceed(() => [] as ReadonlyArray<string>)
    )
    const taken = new Set([...ids, ...recorded.filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -5))])
    const answer = conversation.messages[at]!.content
    // The turns of the conversation before the rated one: each assistant message of a turn, after what
    // the person said (asked, or decided on a proposal). A rated turn after others drafts a conversation.
    const earlier: Array<{ readonly said: StepAction; readonly turnId: string; readonly answer: string }> = []
    let said: Message | undefined
    for (const m of conversation.messages.slice(0, at)) {
      if (m.role === "user") said = m
      else if (m.role === "assistant" && typeof m.turnId === "string" && m.turnId !== "" && said !== undefined) {
        earlier.push({ said: saidBy(said), turnId: m.turnId, answer: m.content })
        said = undefined
      }
    }
    const earlierTurns = yield* Effect.forEach(earlier, (e) =>
      Effect.gen(function*() {
        const problem = idProblem(e.turnId)
        if (problem !== undefined) {
          return yield* new UsageError({
            message: `conversation ${shownConversation} names turn ${
              quoted(e.turnId)
            }, which ${problem}: no request is made with it`
          })
        }
        const earlierTrace = yield* app.read("trace", fillRoute(app.routes.trace, { turnId: e.turnId }), TurnTrace)
        return { said: e.said, answer: e.answer, trace: earlierTrace }
      }))
    const options = { taken, id: explicitId }
    const draft = earlierTurns.length === 0
      ? ofQuestion(
        draftCase({ question: asked.content, answer, trace, comment: rating.comment }, trace.surface, surface, options),
        answer,
        trace
      )
      : ofConversation(
        draftConversation(
          earlierTurns,
          { said: saidBy(asked), answer, trace, comment: rating.comment },
          trace.surface,
          surface,
          options
        )
      )
    const testCase: Case = draft.case
    const expected = [...set.cases, testCase]
    const violatedLines = draft.violated.map((f) => `  ✗ ${f.expectation.kind}  ${inert(f.fact ?? "")}`)
    const heldCount = draft.rated - draft.violated.length
    const noViolation =
      "note: the turn broke none of the drafted facts, so the case passes on it; add an expectation that catches what " +
      "the rating objects to (answer-includes, answer-excludes, …)"
    const file = fixturePath(path, args.fixtures, testCase.id)
    // A second draft of the same question is most often the same rated turn proposed twice.
    const twin = isConversation(testCase) ?
      undefined :
      set.cases.find((c) => c.surface === testCase.surface && !isConversation(c) && c.question === testCase.question)
    const twinNote = twin === undefined
      ? undefined
      : `${args.cases} already asks this question on ${testCase.surface}, in case ${twin.id}`

    if (!args.append) {
      yield* Console.log(inertLines(renderCase(testCase)))
      yield* Console.error(
        [
          `drafted ${testCase.id} from turn ${shownTurn}: ${
            plural(draft.violated.length, "fact")
          } it broke, ${heldCount} it held`,
          ...violatedLines,
          ...(draft.violated.length === 0 ? [noViolation] : []),
          ...(twinNote === undefined ? [] : [`note: ${twinNote}; --append adds another only with --id`]),
          `nothing was written; review the draft, then add --append to add it to ${args.cases} with the rated turn recorded as ${file}`
        ].join("\n")
      )
      return
    }

    // --append: a valid case, a free id, no recorded turn to overwrite.
    const problems = caseProblems({ version: 1, cases: expected }, set.catalog)
    if (problems.length > 0) return yield* new BadInput({ file: `the draft of ${testCase.id}`, problems })
    if (twinNote !== undefined && explicitId === undefined) {
      return yield* new UsageError({ message: `${twinNote}: edit that case, or add another with --id` })
    }
    if (ids.has(testCase.id)) {
      return yield* new UsageError({
        message: `${args.cases} already has a case ${testCase.id}; choose another id with --id`
      })
    }
    if (yield* fs.exists(file).pipe(Effect.orElseSucceed(() => true))) {
      return yield* new UsageError({
        message: `${file} already exists, and a recorded turn is never overwritten; choose another id with --id`
      })
    }
    const before = yield* readText(args.cases)
    const inPlace = appendCaseText(before, testCase)
    const keepsTheRest = inPlace !== undefined &&
      Either.match(decodeJson(CasesFile, args.cases, inPlace, "strict", fastCasesFile), {
        onLeft: () => false,
        onRight: (decoded) => canonical(decoded.cases) === canonical(expected)
      })
    // A file whose layout the in-place edit cannot follow is rewritten whole, in the golden set's layout.
    const after = keepsTheRest
      ? inPlace!
      : `{\n  "version": 1,\n  "cases": [\n${
        expected.map((c) => inertLines(renderCase(c, "    "))).join(",\n")
      }\n  ]\n}\n`
    const turn = draft.recording
    yield* fs.makeDirectory(args.fixtures, { recursive: true }).pipe(
      Effect.mapError(() => new UsageError({ message: `--fixtures ${args.fixtures}: cannot create that folder` }))
    )
    // The recorded turn first: a golden set never names a case whose turn failed to be written.
    yield* writeAtomically(file, `${inertLines(JSON.stringify(turn, null, 2))}\n`)
    yield* writeAtomically(args.cases, after).pipe(Effect.tapError(() => fs.remove(file).pipe(Effect.ignore)))
    yield* Console.log(
      [
        `added ${testCase.id} to ${args.cases}, with turn ${shownTurn} recorded as ${file}`,
        ...(draft.violated.length === 0
          ? [noViolation]
          : [
            `${programName} run --fixtures ${args.fixtures} fails it until the assistant is fixed (${
              plural(draft.violated.length, "fact")
            } broken):`,
            ...violatedLines
          ]),
        `review it, then delete the "drafted" marks to accept it (the case set's fingerprint stays the same)`
      ].join("\n")
    )
  }).pipe(Effect.provide(HttpLive))
