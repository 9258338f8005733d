/**
 * `--help` of every command, as a test runner's reads: the usage line runnable as printed, each flag on
 * a line of its own words (its default or its choices), grouped, no line wider than 100 columns, and at
 * most 60 lines however many flags a command has.
 */
import { describe, expect, it } from "@effect/vitest"
import { commandOptions, flagsOf } from "../../src/Commands/Flags.js"
import { commandHelp, flagGroups, helpFor, programHelp, wrapped } from "../../src/Commands/Help.js"
import { programName } from "../../src/ProgramName.js"

describe("each command's --help", () => {
  for (const [command, options] of commandOptions) {
    it(`${command}: every flag on a line of its own words, grouped, in at most 60 lines of 100 columns`, () => {
      const help = commandHelp(command)
      const lines = help.split("\n")
      expect(lines[0]).toMatch(
        new RegExp(`^Usage: ${programName.replace(/\W/g, "\\$&")} ${command}\\b.*\\[options\\]$`)
      )
      expect(lines.length).toBeLessThanOrEqual(60)
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(100)
      expect(help).not.toMatch(/A user-defined piece of text|This setting is optional/)
      for (const flag of flagsOf(options)) {
        expect(flagGroups.some(([, names]) => names.includes(flag.name)), `${flag.name} is in a group`).toBe(true)
        const line = lines.findIndex((l) => l.startsWith(`  ${flag.name}`))
        expect(line, `${command} lists ${flag.name}`).toBeGreaterThan(0)
        // Its words are on its line, or on the line below a flag named at more length than the column.
        const words = lines[line]!.slice(flag.name.length + 2).trim() || lines[line + 1]!.trim()
        expect(words, `${command} ${flag.name}`).toMatch(/^\S/)
        if (flag.default !== undefined) expect(help.replace(/\s+/g, " ")).toContain(`(default: ${flag.default})`)
      }
      expect(help).toMatch(/\nExamples\n {2}\S/)
    })
  }
})

describe("the program's --help", () => {
  it("lists every command with what it does, in lines of at most 100 columns", () => {
    const help = programHelp("9.9.9")
    for (const [command] of commandOptions) expect(help).toMatch(new RegExp(`^ {2}${command} +\\S`, "m"))
    for (const line of help.split("\n")) expect(line.length).toBeLessThanOrEqual(100)
  })

  it("is what --help or -h asks for, anywhere before --, of the command named first", () => {
    expect(helpFor(["run", "--fixtures", "x", "-h"], "1")).toBe(commandHelp("run"))
    expect(helpFor(["--help"], "1")).toBe(programHelp("1"))
    expect(helpFor(["nosuch", "--help"], "1")).toBe(programHelp("1"))
    expect(helpFor(["run", "--", "--help"], "1")).toBeUndefined()
    expect(helpFor(["run"], "1")).toBeUndefined()
  })
})

describe("wrapping", () => {
  it("breaks at words within 100 columns, indenting the lines after the first", () => {
    const text = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ")
    const lines = wrapped(text, 4).split("\n")
    expect(lines.length).toBeGreaterThan(1)
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100)
    expect(lines.slice(1).every((l) => l.startsWith("    word"))).toBe(true)
    expect(lines.join(" ").replace(/\s+/g, " ")).toBe(text)
  })
})
