import { describe, expect, it } from "@effect/vitest"
import { invokedAs } from "../src/ProgramName.js"

describe("invokedAs", () => {
  it.each([
    [{}, "turn-eval"],
    [{ npm_lifecycle_event: "eval", npm_command: "run", npm_package_name: "turn-eval" }, "npm run eval --"],
    [{ npm_lifecycle_event: "eval", npm_command: "run", npm_package_name: "a-users-app" }, "npm run eval --"],
    [{ npm_lifecycle_event: "start", npm_command: "start", npm_package_name: "turn-eval" }, "npm run eval --"],
    [{ npm_lifecycle_event: "start", npm_command: "start", npm_package_name: "a-users-app" }, "npx turn-eval"],
    [{ npm_lifecycle_event: "npx", npm_command: "exec" }, "npx turn-eval"],
    [{ npm_lifecycle_event: "ci:eval", npm_command: "run", npm_package_name: "a-users-app" }, "npx turn-eval"]
  ])("names the program for %j as %s", (env, name) => {
    expect(invokedAs(env)).toBe(name)
  })
})
