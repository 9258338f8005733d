import { describe, expect, it } from "@effect/vitest"
import { listed, maxListed, names, quoted, showCount, shown } from "../../src/Schema/Shown.js"

describe("shown", () => {
  it("keeps a value of up to 200 characters and clips a longer one", () => {
    expect(shown("x".repeat(200))).toBe("x".repeat(200))
    expect(shown("x".repeat(201))).toBe(`${"x".repeat(200)}…`)
  })
})

describe("showCount", () => {
  it("separates thousands with commas, whatever the machine's locale", () => {
    expect([0, 7, 999, 1_000, 99_980, 1_234_567].map(showCount)).toEqual([
      "0",
      "7",
      "999",
      "1,000",
      "99,980",
      "1,234,567"
    ])
  })
})

describe("listed", () => {
  it("joins up to 20 items as they are", () => {
    const items = Array.from({ length: maxListed }, (_, i) => `i${i}`)
    expect(listed(items, ", ")).toBe(items.join(", "))
  })

  it("lists the first 20 of more, then how many more there are", () => {
    const items = Array.from({ length: 100_000 }, (_, i) => `i${i}`)
    expect(listed(items, "; ")).toBe(`${items.slice(0, 20).join("; ")}; … and 99,980 more`)
  })
})

describe("quoted and names", () => {
  it("quote a name clipped and inert", () => {
    expect(quoted("catalgo")).toBe("\"catalgo\"")
    expect(quoted("a\nb\u202e")).toBe("\"a\\nb\\u202e\"")
    expect(quoted("t".repeat(1_000_000))).toBe(`"${"t".repeat(200)}…"`)
  })

  it("list names clipped, inert and capped", () => {
    expect(names([])).toBe("none")
    expect(names(["search_docs", "cat\talog"])).toBe("search_docs, cat\\talog")
    const many = names(Array.from({ length: 30 }, (_, i) => `${i}${"t".repeat(1_000)}`))
    expect(many.length).toBeLessThan(5_000)
    expect(many).toMatch(/, … and 10 more$/)
  })
})
