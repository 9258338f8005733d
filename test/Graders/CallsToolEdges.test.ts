/** calls-tool with `with`: the fact ends in `; …` exactly when more successful calls ran than it shows (3). */
import { describe, expect, it } from "@effect/vitest"
import { callsTool } from "../../src/Graders/CallsTool.js"
import { callWith, docsSurface, turn } from "../support/turns.js"

const search = { kind: "calls-tool", tool: "catalog", with: { service: "search-api" } } as const
const calls = (count: number) => Array.from({ length: count }, (_, n) => callWith("catalog", { n }))
const factOf = (count: number) => callsTool(search, turn({ toolExecutions: calls(count) }), docsSurface).fact
const shownCalls = "{\"n\":0}; {\"n\":1}; {\"n\":2}"

describe("callsTool's fact over many calls", () => {
  it("shows 3 calls whole, with nothing after them", () => {
    expect(factOf(3)).toBe(`not called with {"service":"search-api"}: catalog ran 3× with ${shownCalls}`)
  })

  it("marks the calls it leaves out with ; …", () => {
    expect(factOf(4)).toBe(`not called with {"service":"search-api"}: catalog ran 4× with ${shownCalls}; …`)
  })
})
