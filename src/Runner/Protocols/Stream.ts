/**
 * What the streaming protocols share (`ai-sdk`, `ag-ui`): post the question as JSON and read the
 * answer's event stream to its end, each event's data parsed as JSON. The conversation id is the
 * run's own, named before asking, so an ask cut short never leaves a conversation the run cannot name.
 */
import { Effect, Option, Ref } from "effect"
import { type Failure, failure, isEventStream, isWebPage, webPage } from "../Transport.js"
import { type Asking, postQuestion } from "./Protocol.js"

/** The end-of-stream frame the AI SDK writes (`data: [DONE]`). */
const done = "[DONE]"

/** An answer's event stream: the JSON of every `data:` frame, in order, and whether `data: [DONE]` ended it. */
export interface EventStream {
  readonly frames: ReadonlyArray<unknown>
  readonly done: boolean
}

/**
 * Posts `body` to the surface's endpoint, retrying 429 and 503 (a question is never re-asked after a
 * connection that may have reached the app), and gives the JSON of every event of the event stream it
 * answers, in order (an event of several `data:` lines is their lines joined), and whether it ended with
 * `[DONE]` (a reader may take that as the turn's end). An app that cannot be reached at all before any
 * answer stops the run.
 */
export const askForEvents = (asking: Asking, body: unknown, accept = "text/event-stream") =>
  Effect.gen(function*() {
    const { state, surface, transport } = asking
    const endpoint = surface.endpoint ?? ""
    const sent = yield* postQuestion(asking, "ask", endpoint, { body, accept })
    const response = sent.response
    if (response === undefined) return yield* failure("ask", `HTTP ${sent.status}`)
    yield* Ref.set(state.phase, "reading")
    const contentType = response.headers["content-type"] ?? ""
    if (!isEventStream(response)) {
      yield* transport.discard("ask", response)
      return yield* isWebPage(contentType)
        ? webPage("ask", response.status, transport.urlOf(endpoint).href)
        : failure(
          "ask",
          `expected an event stream (text/event-stream), got ${
            contentType === "" ? "no content type" : JSON.stringify(contentType)
          }`
        )
    }
    const frames: Array<unknown> = []
    let ended = false
    yield* transport.forEachEventData("ask", response, (data) => {
      if (data === "") return undefined
      // Only a last frame of [DONE] ends the stream: a frame after it leaves it open again.
      ended = data === done
      if (ended) return undefined
      try {
        frames.push(JSON.parse(data))
        return undefined
      } catch {
        return Effect.fail(failure("ask", `event ${frames.length} is not JSON`))
      }
    }).pipe(Effect.catchTag("TransportFailure", (error) => Effect.fail(failure("ask", error.reason))))
    const stream: EventStream = { frames, done: ended }
    return stream
  }).pipe(Effect.ensuring(Ref.set(asking.state.phase, "done")))

/**
 * Asks in a conversation the run names itself: the id is journalled before the question is sent, so it
 * is deleted whatever happens next — unless the app rejected the session or the ask's request never
 * reached it (refused, a TLS failure), when it opened nothing and the id is taken back.
 */
export const askInGenerated = <A>(asking: Asking, id: string, what: string, ask: Effect.Effect<A, Failure>) =>
  Effect.gen(function*() {
    yield* asking.named(id, `the ${what} the run generated`)
    yield* Ref.set(asking.state.unsure, Option.none())
    return yield* Effect.tapError(ask, (error) =>
      Effect.flatMap(
        Ref.get(asking.state.reached),
        (reached) => error._tag === "RunStopped" || !reached ? asking.forget(id) : Effect.void
      ))
  })
