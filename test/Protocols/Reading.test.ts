/** A tool's error text as a fact shows it, whichever wire and framework carried it. */
import { describe, expect, it } from "@effect/vitest"
import { toolErrorText } from "../../src/Protocols/Reading.js"

describe("toolErrorText", () => {
  it("a serialised error object shows its message: message, else cause.message, else details.errorMessage", () => {
    // Mastra's tool-output-error.errorText: the error object as JSON.
    const mastra = JSON.stringify({
      name: "Error",
      cause: { message: "order service down", name: "Error" },
      stack: "Error: order service down\n    at execute (tool.ts:3:11)"
    })
    expect(toolErrorText(mastra)).toBe("order service down")
    expect(toolErrorText(JSON.stringify({ message: "Error: timeout", cause: { message: "socket hang up" } })))
      .toBe("timeout")
    expect(toolErrorText(JSON.stringify({ details: { errorMessage: "quota exceeded" }, code: 429 })))
      .toBe("quota exceeded")
  })

  it("JSON that holds no message, or is no object, is shown as text", () => {
    expect(toolErrorText("{\"code\":500}")).toBe("{\"code\":500}")
    expect(toolErrorText("{\"message\":\"  \"}")).toBe("{\"message\":\"  \"}")
    expect(toolErrorText("[\"message\"]")).toBe("[\"message\"]")
    expect(toolErrorText("{not json")).toBe("{not json")
    expect(toolErrorText("Error: order service unavailable")).toBe("order service unavailable")
  })
})
