/** The benchmark's differences of medians: a rate is printed only from a difference above its noise. */
import { describe, expect, it } from "vitest"
import { belowNoise, difference } from "../bench/lib.js"

describe("difference", () => {
  it("measures what the runs took beyond the subtracted ones, by medians", () => {
    expect(difference([900, 1000, 1100], [290, 300, 310])).toEqual({ ms: 700, noiseMs: 20, measured: true })
  })

  it("measures nothing when the runs took less than what they subtract (under load)", () => {
    const d = difference([400, 420, 440], [380, 500, 520])
    expect(d.measured).toBe(false)
    expect(belowNoise(d)).toBe(
      "below its noise floor (-80 ms beyond start-up, within the 140 ms spread of the start-up runs)"
    )
  })

  it("measures nothing when the difference is within the spread of the subtracted runs", () => {
    expect(difference([360], [250, 300, 400])).toEqual({ ms: 60, noiseMs: 150, measured: false })
  })
})
