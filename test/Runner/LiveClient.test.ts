import { describe, expect, it } from "@effect/vitest"
import { Duration, Option } from "effect"
import { retryAfter, showLimit } from "../../src/Runner/LiveClient.js"
import { fillRoute, resolveRoutes } from "../../src/Schema/Protocol.js"

describe("retryAfter", () => {
  const now = Date.parse("2026-11-30T12:00:00Z")

  it("reads seconds and HTTP dates, never waiting less than 0 or more than a minute", () => {
    expect(retryAfter("2", now)).toEqual(Option.some(Duration.seconds(2)))
    expect(retryAfter(" 0 ", now)).toEqual(Option.some(Duration.millis(0)))
    expect(retryAfter("Mon, 30 Nov 2026 12:00:05 GMT", now)).toEqual(Option.some(Duration.millis(5000)))
    expect(retryAfter("Mon, 30 Nov 2026 11:00:00 GMT", now)).toEqual(Option.some(Duration.millis(0)))
    expect(retryAfter("86400", now)).toEqual(Option.some(Duration.seconds(60)))
  })

  it("ignores a missing or unreadable header", () => {
    expect(retryAfter(undefined, now)).toEqual(Option.none())
    expect(retryAfter("soon", now)).toEqual(Option.none())
  })
})

describe("routes", () => {
  it("fill their templates with URL-encoded ids, so an id cannot change the path", () => {
    expect(fillRoute("/api/ai/turns/{turnId}/trace", { turnId: "t/../../admin?x=1" })).toBe(
      "/api/ai/turns/t%2F..%2F..%2Fadmin%3Fx%3D1/trace"
    )
  })

  it("take the catalog's overrides over the defaults", () => {
    expect(resolveRoutes({ trace: "/t/{turnId}" })).toEqual({
      conversation: "/api/ai/conversations/{conversationId}",
      decide: "/api/ai/proposals/{proposalId}/decision",
      trace: "/t/{turnId}",
      delete: "/api/ai/conversations/{conversationId}",
      ratings: "/api/ai/ratings?rating=down"
    })
  })

  it("show durations the way timeouts are reported", () => {
    expect(showLimit(Duration.seconds(120))).toBe("120s")
    expect(showLimit(Duration.millis(1500))).toBe("1500ms")
  })
})
