import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import { mergeShards } from "../../src/Application/Merge.js"
import { parseReporters } from "../../src/Reporters/Reports.js"
import type { CaseResult, RunResult } from "../../src/Schema/Result.js"
import { summarize } from "../../src/Scorecard/Scorecard.js"

const whole = "sha256:" + "a".repeat(64)
const other = "sha256:" + "b".repeat(64)
const part = "sha256:" + "c".repeat(64)
const ok = (id: string): CaseResult => ({ id, surface: "docs", passed: true, expectations: [] })
const shard = (index: number, count: number, ids: ReadonlyArray<string>, of = whole): RunResult =>
  summarize(ids.map(ok), part, null, { shard: { index, count, of } })
const ids = ["a", "b", "c", "d"]

const merged = (files: ReadonlyArray<[string, RunResult]>) =>
  Effect.runSync(
    Effect.either(mergeShards(files.map(([file, result]) => ({ file, result })), { ids, fingerprint: whole }))
  )
const message = (outcome: Either.Either<unknown, { message: string }>) =>
  Either.isLeft(outcome) ? outcome.left.message : "merged"

describe("mergeShards", () => {
  it("joins every shard once into golden-set order", () => {
    const outcome = merged([["s2.json", shard(2, 2, ["d", "b"])], ["s1.json", shard(1, 2, ["c", "a"])]])
    expect(Either.getOrThrow(outcome).cases.map((c) => c.id)).toEqual(ids)
  })

  it("refuses overlapping, missing and mismatched shards, naming them", () => {
    expect(message(merged([["s1.json", shard(1, 2, ["a", "b"])], ["again.json", shard(1, 2, ["c", "d"])]])))
      .toBe("shard 1/2 appears twice (s1.json and again.json): overlapping shards")
    expect(message(merged([["s1.json", shard(1, 3, ["a", "b"])], ["s3.json", shard(3, 3, ["c", "d"])]])))
      .toBe("missing shard 2/3: merge every shard of the run")
    expect(message(merged([["s1.json", shard(1, 2, ["a", "b"])], ["s2.json", shard(2, 2, ["b", "c", "d"])]])))
      .toBe("case \"b\" is in s1.json and s2.json: overlapping shards")
    expect(message(merged([["s1.json", shard(1, 2, ["a"])], ["s2.json", shard(2, 2, ["c", "d"])]])))
      .toBe("no shard holds case \"b\": the shards do not cover the golden set")
    expect(message(merged([["s1.json", shard(1, 2, ["a", "b"])], ["s2.json", shard(2, 3, ["c", "d"])]])))
      .toContain("s2.json is shard 2/3, but s1.json is one of 2")
    expect(message(merged([["s1.json", shard(1, 2, ["a", "b"], other)], ["s2.json", shard(2, 2, ["c", "d"], other)]])))
      .toContain("the shards ran over another golden set")
    const unsharded = merged([["full.json", summarize(ids.map(ok), whole, null)]])
    expect(Either.isLeft(unsharded) && unsharded.left).toMatchObject({
      file: "full.json",
      problems: [{ path: "$.shard" }]
    })
  })
})

describe("parseReporters", () => {
  const parsed = (specs: ReadonlyArray<string>, json?: string) =>
    Effect.runSync(Effect.either(parseReporters(specs, Option.fromNullable(json))))

  it("defaults to the scorecard, adds --json FILE as a json reporter, and lets github go with the scorecard", () => {
    expect(Either.getOrThrow(parsed([]))).toEqual([{ name: "pretty" }])
    expect(Either.getOrThrow(parsed(["junit=r.xml"], "r.json"))).toEqual([
      { name: "pretty" },
      { name: "junit", file: "r.xml" },
      { name: "json", file: "r.json" }
    ])
    expect(Either.getOrThrow(parsed(["github"]))).toEqual([{ name: "pretty" }, { name: "github" }])
    expect(Either.getOrThrow(parsed(["github", "json=r.json"]))).toEqual([
      { name: "pretty" },
      { name: "github" },
      { name: "json", file: "r.json" }
    ])
    expect(message(parsed(["json", "github"]))).toContain("would break the json report there")
  })

  it("refuses unknown names, two documents on standard output, one file twice and a file for github", () => {
    expect(message(parsed(["tap"]))).toContain("NAME one of pretty, json, junit, github, markdown, html")
    expect(message(parsed(["pretty", "junit"]))).toContain("pretty and junit would both write to standard output")
    expect(message(parsed(["junit=r.txt", "markdown=r.txt"]))).toBe(
      "two reporters write to r.txt: give each its own file"
    )
    expect(message(parsed(["github=x"]))).toContain("--reporter github takes no file")
    expect(message(parsed(["junit="]))).toContain("the file after \"=\" is empty")
  })
})
