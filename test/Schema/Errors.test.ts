import { describe, expect, it } from "@effect/vitest"
import {
  BadInput,
  exitCodeOf,
  FailedRequest,
  GateFailed,
  isCommandError,
  Refused,
  RunStopped,
  TurnError,
  type TurnFailure,
  UsageError
} from "../../src/Schema/Errors.js"

describe("the errors a command ends with", () => {
  it("map to their exit codes: 1 for a failed gate, 2 for bad input, usage, a refusal or a stopped run", () => {
    const gates = ["below-floor", "violations", "regressions", "conversations-remain"] as const
    for (const reason of gates) expect(exitCodeOf(new GateFailed({ reason }))).toBe(1)
    expect(exitCodeOf(new BadInput({ file: "f.json", problems: [] }))).toBe(2)
    expect(exitCodeOf(new UsageError({ message: "m" }))).toBe(2)
    for (const reason of ["ratchet", "not-a-measurement", "unreadable-lines"] as const) {
      expect(exitCodeOf(new Refused({ reason, message: "m" }))).toBe(2)
    }
    expect(exitCodeOf(new RunStopped({ reason: "session-rejected" }))).toBe(2)
    expect(
      exitCodeOf(new RunStopped({ reason: "unreachable", url: "http://127.0.0.1:1/ask", why: "connection refused" }))
    ).toBe(2)
  })

  it("say why a run stopped in the words a user acts on", () => {
    expect(new RunStopped({ reason: "session-rejected" }).message).toBe(
      "the app refused the session (401): sign in again and export a fresh cookie"
    )
    expect(new RunStopped({ reason: "session-rejected", source: "--cookie", request: "GET /api/ai/ratings" }).message)
      .toBe(
        "the app refused the session from --cookie (401 on GET /api/ai/ratings): sign in again and pass a fresh --cookie"
      )
    expect(
      new RunStopped({ reason: "unreachable", url: "http://127.0.0.1:1/api/ai/docs/ask", why: "connection refused" })
        .message
    )
      .toBe(
        "cannot reach the app at http://127.0.0.1:1/api/ai/docs/ask: connection refused — is the dev server running?"
      )
  })

  it("say an app reached over https that answers in plain http speaks http", () => {
    const why = "TLS failed (ERR_SSL_WRONG_VERSION_NUMBER)"
    expect(new RunStopped({ reason: "unreachable", url: "https://127.0.0.1:1/ask", why, plainHttp: true }).message)
      .toBe(`cannot reach the app at https://127.0.0.1:1/ask: ${why} — the app speaks http, not https?`)
  })

  it("are told apart from anything else, which is a bug (exit 70)", () => {
    expect(isCommandError(new UsageError({ message: "m" }))).toBe(true)
    expect(isCommandError(new TurnError({ reason: "status", route: "ask", status: 500 }))).toBe(false)
    expect(isCommandError(new Error("boom"))).toBe(false)
    expect(isCommandError("boom")).toBe(false)
  })
})

describe("a case's failure", () => {
  const mib8 = 8 * 1024 * 1024
  // Every reason, with the sentence a case's error has always read: results files keep these bytes.
  const sentences: { readonly [K in TurnFailure]: ReadonlyArray<readonly [TurnError, string]> } = {
    "unreachable": [
      [new TurnError({ reason: "unreachable", route: "ask", detail: "connection refused" }), "ask: connection refused"]
    ],
    "status": [[new TurnError({ reason: "status", route: "trace", status: 404 }), "trace: HTTP 404"]],
    "web-page": [[
      new TurnError({ reason: "web-page", route: "ask", status: 200, url: "http://app.test/ask" }),
      "ask: the app answered a web page (HTTP 200 text/html from http://app.test/ask), not the protocol — is the route right and the session signed in?"
    ]],
    "redirect": [[
      new TurnError({ reason: "redirect", route: "trace", detail: "more than 5 redirects" }),
      "trace: more than 5 redirects"
    ]],
    "not-json": [
      [new TurnError({ reason: "not-json", route: "conversation" }), "conversation: not JSON"],
      [new TurnError({ reason: "not-json", route: "ask", event: 3 }), "ask: event 3 is not JSON"],
      [new TurnError({ reason: "not-json", route: "thread", within: "search" }), "thread: search: not JSON"]
    ],
    "wire": [[
      new TurnError({ reason: "wire", route: "ask", detail: "the answer carries no turnId" }),
      "ask: the answer carries no turnId"
    ]],
    "too-large": [
      [
        new TurnError({ reason: "too-large", route: "trace", part: "body", limit: 32 * 1024 * 1024 }),
        "trace: body over 32 MiB"
      ],
      [
        new TurnError({ reason: "too-large", route: "ask", part: "line", limit: mib8 }),
        "ask: an event-stream line over 8 MiB"
      ],
      [
        new TurnError({ reason: "too-large", route: "ask", part: "event", limit: 1536 * 1024 }),
        "ask: an event-stream event's data over 1.5 MiB"
      ]
    ],
    "timed-out": [
      [new TurnError({ reason: "timed-out", route: "ask", limit: 2000 }), "ask: timed out after 2s"],
      [
        new TurnError({ reason: "timed-out", route: "trace", limit: 1500, retrying: "HTTP 503" }),
        "trace: HTTP 503 (retried until the 1500ms timeout)"
      ]
    ],
    "stopped": [[new TurnError({ reason: "stopped", route: "ask" }), "ask: stopped while waiting to retry"]],
    "path-refused": [[
      new TurnError({
        reason: "path-refused",
        route: "delete",
        what: "delete route",
        path: "//evil.test/x",
        detail: "leaves the app's origin"
      }),
      "delete: refused the delete route \"//evil.test/x\": it leaves the app's origin; no request is made"
    ]],
    "id-refused": [
      [
        new TurnError({
          reason: "id-refused",
          route: "ask",
          idOf: "conversation",
          id: "../x",
          where: "x-conversation-id",
          detail: "holds a slash"
        }),
        "ask: refused the conversation id \"../x\" (x-conversation-id): it holds a slash; no request is made with it"
      ],
      [
        new TurnError({ reason: "id-refused", route: "ask", idOf: "turn", id: "", detail: "is empty" }),
        "ask: refused the turn id \"\": it is empty; no request is made with it"
      ]
    ],
    "no-recording": [[
      new TurnError({ reason: "no-recording", file: "turns/a.json" }),
      "no recorded turn: turns/a.json"
    ]],
    "recording": [[
      new TurnError({ reason: "recording", file: "turns/a.json", detail: "cannot read: a directory" }),
      "recorded turn turns/a.json: cannot read: a directory"
    ]],
    "recording-mismatch": [
      [
        new TurnError({ reason: "recording-mismatch", file: "turns/a.json", caseId: "b" }),
        "recorded turn turns/a.json is for case \"b\""
      ],
      [
        new TurnError({ reason: "recording-mismatch", file: "turns/a.json" }),
        "recorded turn turns/a.json answers another question; record it again for the case's question"
      ]
    ],
    "no-turn": [
      [new TurnError({ reason: "no-turn", caseId: "a" }), "no turn for case a"],
      [
        new TurnError({ reason: "no-turn", caseId: "a", surface: "docs" }),
        "no turn for case a in the traces: none carries its case id or asks its question on surface docs"
      ]
    ],
    "trace": [[
      new TurnError({ reason: "trace", detail: "trace t1 (a.json): no answer" }),
      "trace t1 (a.json): no answer"
    ]],
    "unknown-protocol": [[
      new TurnError({ reason: "unknown-protocol", what: `"grpc"`, detail: `"turn-eval", "ai-sdk"` }),
      `unknown protocol "grpc": expected one of "turn-eval", "ai-sdk"`
    ]],
    "cannot-take-step": [[
      new TurnError({ reason: "cannot-take-step", detail: "a conversation starts with an ask" }),
      "a conversation starts with an ask"
    ]]
  }

  it("reads, for every reason, as a case's error always has", () => {
    for (const [reason, examples] of Object.entries(sentences)) {
      for (const [error, text] of examples) expect([reason, error.message]).toEqual([error.reason, text])
    }
  })

  it("names the request it came from once, after its sentence", () => {
    const failed = new TurnError({ reason: "status", route: "trace", status: 500 })
    const named = failed.withRequest(new FailedRequest({ method: "GET", url: "http://app.test/trace/t1" }))
    expect(named).toMatchObject({
      reason: "status",
      status: 500,
      request: { method: "GET", url: "http://app.test/trace/t1" }
    })
    expect(named.message).toBe("trace: HTTP 500 — GET http://app.test/trace/t1")
    expect(named.withRequest(new FailedRequest({ method: "POST", url: "http://app.test/other" })).message)
      .toBe(named.message)
  })

  it("does not name again the URL a web page's sentence names", () => {
    const url = "http://app.test/ask"
    const page = new TurnError({ reason: "web-page", route: "ask", status: 200, url })
    expect(page.withRequest(new FailedRequest({ method: "POST", url })).message).toBe(page.message)
    expect(page.withRequest(new FailedRequest({ method: "POST", url: "http://app.test/other" })).message)
      .toBe(`${page.message} — POST http://app.test/other`)
  })
})
