import { describe, expect, it } from "@effect/vitest"
import {
  BadInput,
  exitCodeOf,
  GateFailed,
  isCommandError,
  Refused,
  RunStopped,
  TurnError,
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
    expect(new RunStopped({ reason: "session-rejected" }).message).toBe("session rejected: sign in again")
    expect(
      new RunStopped({ reason: "unreachable", url: "http://127.0.0.1:1/api/ai/docs/ask", why: "connection refused" })
        .message
    )
      .toBe(
        "cannot reach the app at http://127.0.0.1:1/api/ai/docs/ask: connection refused — is the dev server running?"
      )
  })

  it("are told apart from anything else, which is a bug (exit 70)", () => {
    expect(isCommandError(new UsageError({ message: "m" }))).toBe(true)
    expect(isCommandError(new TurnError({ reason: "ask: HTTP 500" }))).toBe(false)
    expect(isCommandError(new Error("boom"))).toBe(false)
    expect(isCommandError("boom")).toBe(false)
  })
})
