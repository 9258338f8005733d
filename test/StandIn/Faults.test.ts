import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { faultProblem, parseFault } from "../../src/StandIn/Faults.js"
import { stableFraction } from "../../src/StandIn/Server.js"

describe("parseFault", () => {
  it.each([
    ["trace:500", { route: "trace", kind: "status", status: 500 }],
    ["ask:503/2@0.25", { route: "ask", kind: "status", status: 503, retryAfter: "2", rate: 0.25 }],
    ["conversation:hang", { route: "conversation", kind: "hang" }],
    ["ask:reset@1", { route: "ask", kind: "reset", rate: 1 }],
    ["trace:not-json", { route: "trace", kind: "not-json" }],
    ["trace:wrong-shape@0", { route: "trace", kind: "wrong-shape", rate: 0 }],
    ["trace:huge", { route: "trace", kind: "huge" }],
    ["delete:redirect=http://127.0.0.1:9", { route: "delete", kind: "redirect", to: "http://127.0.0.1:9" }],
    ["ask:no-result@0.3", { route: "ask", kind: "no-result", rate: 0.3 }]
  ])("reads %s", (spec, fault) => {
    expect(parseFault(spec)).toEqual(Either.right(fault))
  })

  it.each([
    "trace",
    "traces:500",
    "trace:600",
    "trace:oops",
    "trace:500@1.5",
    "trace:500@x",
    "ask:redirect=ftp://x",
    "trace:no-result",
    ""
  ])(
    "refuses %j with what it expects",
    (spec) => {
      const parsed = parseFault(spec)
      expect(Either.isLeft(parsed) && parsed.left).toMatch(/^--fault ".*": expected ROUTE:FAULT\[@RATE\]/)
    }
  )
})

describe("faultProblem", () => {
  it("takes a no-result fault where calls stream by id, and says why not elsewhere", () => {
    expect(faultProblem({ route: "ask", kind: "no-result" }, ["ag-ui"])).toBeUndefined()
    expect(faultProblem({ route: "ask", kind: "no-result" }, ["turn-eval", "ai-sdk"])).toBeUndefined()
    expect(faultProblem({ route: "ask", kind: "no-result" }, ["turn-eval", "langgraph"])).toBe(
      "a no-result fault: turn-eval, langgraph streams no call apart from its result (ai-sdk and ag-ui do)"
    )
  })
})

describe("stableFraction", () => {
  it("is the same every time and spreads questions over [0, 1)", () => {
    expect(stableFraction("where is payments-api?")).toBe(stableFraction("where is payments-api?"))
    const fractions = Array.from({ length: 1000 }, (_, i) => stableFraction(`question ${i}`))
    expect(fractions.every((f) => f >= 0 && f < 1)).toBe(true)
    const hit = fractions.filter((f) => f < 0.2).length
    expect(hit).toBeGreaterThan(150)
    expect(hit).toBeLessThan(250)
  })
})
