/**
 * `run --record` over real HTTP on loopback: recording a turn never changes its verdict. A turn that
 * cannot be written as a recording (a tool input nested 100,000 levels deep) is graded as usual, and
 * its recording is skipped with a warning naming the case.
 */
import { describe, expect, it } from "@effect/vitest"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { evalCliAsync } from "../support/cli.js"

const id = "docs.deep-tool-input"
const question = "Which page covers refunds?"
const depth = 100_000

/** An app that answers every question with one turn whose tool input is nested `depth` levels deep. */
const withApp = async <A>(body: (url: string) => Promise<A>): Promise<A> => {
  const input = `${"{\"a\":".repeat(depth)}{}${"}".repeat(depth)}`
  const trace = `{"turnId":"turn_deep","surface":"docs","outcome":"answered","citations":[],"proposal":null,` +
    `"toolExecutions":[{"tool":"search_docs","input":${input},"output":{"hits":[]},"error":null}]}`
  const server = createServer((request, response) => {
    request.resume()
    request.on("end", () => {
      const json = (body: string) => response.writeHead(200, { "content-type": "application/json" }).end(body)
      if (request.method === "POST" && request.url === "/api/ai/docs/ask") {
        json(JSON.stringify({ conversationId: "conv_deep", turnId: "turn_deep", answer: "See the refunds page." }))
      } else if (request.method === "GET" && request.url === "/api/ai/conversations/conv_deep") {
        json(JSON.stringify({
          id: "conv_deep",
          messages: [
            { role: "user", content: question },
            { role: "assistant", content: "See the refunds page.", turnId: "turn_deep" }
          ]
        }))
      } else if (request.method === "GET" && request.url === "/api/ai/turns/turn_deep/trace") json(trace)
      else if (request.method === "DELETE" && request.url === "/api/ai/conversations/conv_deep") json("{}")
      else response.writeHead(404).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  try {
    return await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
  } finally {
    await new Promise((resolve) => server.close(resolve))
  }
}

describe("run --record", () => {
  it("grades a turn it cannot record exactly as without --record, skipping the recording with a warning", () =>
    withApp(async (url) => {
      const dir = mkdtempSync(join(tmpdir(), "eval-record-"))
      const cases = join(dir, "cases.json")
      writeFileSync(
        cases,
        JSON.stringify({
          version: 1,
          cases: [{
            id,
            surface: "docs",
            question,
            guards: "a turn too deep to record",
            expect: [{ kind: "calls-tool", tool: "search_docs" }]
          }]
        })
      )
      const args = [
        "run",
        "--base-url",
        url,
        "--cases",
        cases,
        "--baseline",
        join(dir, "baseline.json"),
        "--timeout",
        "10"
      ]
      const env = { EVAL_COOKIE: "session=s1" }
      const plain = await evalCliAsync([...args, "--json", join(dir, "plain.json")], { env })
      const recorded = await evalCliAsync(
        [...args, "--json", join(dir, "recorded.json"), "--record", join(dir, "rec")],
        { env }
      )

      expect(plain.notes).toBe("")
      expect(plain.code).toBe(0)
      expect(recorded.code).toBe(plain.code)
      expect(recorded.stdout).toBe(plain.stdout)
      const verdicts = (file: string) => {
        const { cases } = JSON.parse(readFileSync(join(dir, file), "utf8")) as { cases: Array<Record<string, unknown>> }
        return cases.map(({ id, passed, error, expectations }) => ({ id, passed, error, expectations }))
      }
      expect(verdicts("recorded.json")).toEqual(verdicts("plain.json"))
      expect(verdicts("plain.json")[0]).toMatchObject({ id, passed: true })
      expect(recorded.notes).toBe(
        `warning: case ${id} was graded but not recorded: its turn is nested too deep to write as JSON\n`
      )
      expect(existsSync(join(dir, "rec", `${id}.json`))).toBe(false)
    }))
})
