/**
 * What the streaming protocols share (`ai-sdk`, `ag-ui`): post the question as JSON and read the
 * answer's event stream to its end, each event's data parsed as JSON. The conversation id is the
 * run's own, named before asking (`Asking.inConversation`), so an ask cut short never leaves a
 * conversation the run cannot name.
 */
import { Effect } from "effect"
import {
  eventNotJson,
  failure,
  httpStatus,
  isEventStream,
  isWebPage,
  unreachable,
  webPage
} from "../Runner/Transport.js"
import type { Asking } from "./Protocol.js"

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
export const askForEvents = (
  asking: Asking,
  body: unknown,
  accept = "text/event-stream",
  /** What an answer of this content type (not an event stream) most likely means, in the protocol's words. */
  notAStream?: (contentType: string) => string | undefined
) =>
  Effect.gen(function*() {
    const { surface, transport } = asking
    const endpoint = surface.endpoint ?? ""
    const sent = yield* asking.ask("ask", endpoint, { body, accept })
    const response = sent.response
    if (response === undefined) return yield* httpStatus("ask", sent.status)
    const contentType = response.headers["content-type"] ?? ""
    if (!isEventStream(response)) {
      yield* transport.discard(response)
      const why = notAStream?.(contentType)
      return yield* isWebPage(contentType)
        ? webPage("ask", response.status, transport.urlOf(endpoint).href)
        : failure(
          "ask",
          `expected an event stream (text/event-stream), got ${
            contentType === "" ? "no content type" : JSON.stringify(contentType)
          }${why === undefined ? "" : `: ${why}`}`
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
        return Effect.fail(eventNotJson("ask", frames.length))
      }
    }).pipe(Effect.catchTag("TransportFailure", (error) => Effect.fail(unreachable("ask", error))))
    const stream: EventStream = { frames, done: ended }
    return stream
  })
