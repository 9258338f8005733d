import { describe, expect, it } from "@effect/vitest"
import { renderProgress, showElapsed } from "../../../src/Scorecard/Render/Progress.js"

describe("the progress line", () => {
  it("says cases done of the total, passing so far, time elapsed and an estimate of the time left", () => {
    expect(renderProgress({ done: 10, total: 40, passing: 9, elapsedMs: 8_000 })).toBe(
      "10/40 cases · 9 passing · 8s elapsed · ~24s left"
    )
    expect(renderProgress({ done: 0, total: 40, passing: 0, elapsedMs: 1_200 })).toBe(
      "0/40 cases · 0 passing · 1s elapsed · estimating"
    )
  })

  it("shows durations in seconds, minutes or hours", () => {
    expect([showElapsed(400), showElapsed(59_000), showElapsed(185_000), showElapsed(3_725_000)]).toEqual([
      "0s",
      "59s",
      "3m05s",
      "1h02m"
    ])
  })
})
