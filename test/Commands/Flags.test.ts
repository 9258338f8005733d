/**
 * The command line checked against each command's own flag definitions before parsing: a misspelt
 * command, flag or choice names the nearest one, a flag without its value or with a value of the wrong
 * type names the flag, each in one line; and every flag of every command says what it does.
 */
import { describe, expect, it } from "@effect/vitest"
import { commandLineProblem, commandOptions, flagsOf } from "../../src/Commands/Flags.js"
import { programName } from "../../src/ProgramName.js"
import { didYouMean, editDistance, nearest } from "../../src/Words.js"

describe("the command line, checked before parsing", () => {
  const problems: ReadonlyArray<readonly [ReadonlyArray<string>, string | undefined]> = [
    [["run", "--fixtures", "cases/fixtures", "--check"], undefined],
    [["run", "--fixtures=cases/fixtures", "--concurrency", "2", "--", "--chekc"], undefined],
    [["run", "--help"], undefined],
    [["--version"], undefined],
    [[], undefined],
    [
      ["run", "--chekc"],
      "unknown flag --chekc for turn-eval run (did you mean --check?): turn-eval run --help lists its flags"
    ],
    [["run", "--zzz"], "unknown flag --zzz for turn-eval run: turn-eval run --help lists its flags"],
    [
      ["run", "--concurrency", "abc"],
      "--concurrency takes a whole number, got \"abc\": turn-eval run --help lists its flags"
    ],
    [
      ["run", "--concurrency=2.5"],
      "--concurrency takes a whole number, got \"2.5\": turn-eval run --help lists its flags"
    ],
    [["run", "--timeout", "soon"], "--timeout takes a number, got \"soon\": turn-eval run --help lists its flags"],
    [["run", "--cases"], "--cases needs a value (FILE): turn-eval run --help lists its flags"],
    [["run", "--cases", "--check"], "--cases needs a value (FILE): turn-eval run --help lists its flags"],
    [
      ["standin", "--protocol", "langgrph"],
      "--protocol takes one of turn-eval, ai-sdk, langgraph, ag-ui, got \"langgrph\" (did you mean langgraph?): " +
      "turn-eval standin --help lists its flags"
    ],
    [["rn"], "unknown command \"rn\" (did you mean run?): turn-eval --help lists the commands"],
    [["--chekc"], "--chekc is no flag of turn-eval itself: name a command first (turn-eval --help lists them)"]
  ]
  for (const [args, problem] of problems) {
    it(`${JSON.stringify(args.join(" "))}: ${problem ?? "accepted"}`, () => {
      // The program is named as it was invoked (here, as vitest was).
      expect(commandLineProblem(args)).toBe(
        problem?.replace(/turn-eval (?=run|standin|--help|itself)/g, `${programName} `)
      )
    })
  }
})

describe("every command's flags", () => {
  it("are read from their definitions, each with a description of its own", () => {
    for (const [command, options] of commandOptions) {
      for (const flag of flagsOf(options)) {
        expect(flag.name, command).toMatch(/^--[a-z][a-z-]*$/)
        expect(flag.description.trim(), `${command} ${flag.name}`).not.toBe("")
      }
    }
    const run = flagsOf(commandOptions.find(([name]) => name === "run")![1])
    expect(run.find((f) => f.name === "--cases")).toMatchObject({
      argument: "FILE",
      default: "cases/golden-cases.json"
    })
    expect(run.find((f) => f.name === "--otel")).toMatchObject({ repeatable: true, type: "Text" })
    expect(run.find((f) => f.name === "--check")).toMatchObject({ type: "Bool" })
  })
})

describe("the nearest name", () => {
  it("is within a third of the word's length, and only when it is the one nearest", () => {
    expect(editDistance("chekc", "check")).toBe(2)
    expect(nearest("--chekc", ["--check", "--cases", "--cookie"])).toBe("--check")
    expect(nearest("prety", ["pretty", "json"])).toBe("pretty")
    expect(nearest("xyz", ["pretty", "json"])).toBeUndefined()
    // Two as near as each other: neither is suggested.
    expect(nearest("ab", ["ac", "ad"])).toBeUndefined()
    expect(didYouMean("dcs", ["docs", "ops-agent"])).toBe(" (did you mean docs?)")
  })
})
