/**
 * A LangGraph run whose thread creations reach the app (it makes each thread) but whose answers never
 * come back, as when the run quits while `POST /threads` is in flight; and what such a run leaves: its
 * journal's text and a thread of the account that no run opened, which `cleanup` must keep.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { StandIn } from "../../src/StandIn/Server.js"
import { startCli } from "./cli.js"
import { type HoldingProxy, startHoldingProxy } from "./holdingProxy.js"
import { headerSignInOf, type ProtocolSet, sessionEnv, surfacesArgs } from "./protocols.js"

/** A fresh folder for a run's state. */
export const scratch = (): string => mkdtempSync(join(tmpdir(), "eval-lost-threads-"))

/** All the journal text under a state folder. */
export const journalText = (state: string): string =>
  readdirSync(state, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith(".jsonl"))
    .map((e) => readFileSync(join(e.parentPath, e.name), "utf8")).join("")

/** Whether a request creates a thread. */
export const isCreate = (method: string, path: string): boolean => method === "POST" && /\/threads$/.test(path)

/** Starts a live LangGraph run through a proxy that holds every thread creation's answer, and waits for `inFlight` of them. */
export const creatingThreads = async (s: StandIn, p: ProtocolSet, state: string, inFlight: number): Promise<{
  readonly proxy: HoldingProxy
  readonly cli: ReturnType<typeof startCli>
  readonly env: NodeJS.ProcessEnv
}> => {
  const proxy = await startHoldingProxy(s.url, isCreate)
  const env = { ...sessionEnv(s, headerSignInOf.langgraph), XDG_STATE_HOME: state }
  const cli = startCli(
    ["run", "--base-url", proxy.url, ...surfacesArgs(p), "--concurrency", `${inFlight}`, "--timeout", "60"],
    { env }
  )
  await proxy.whenHeld(inFlight)
  return { proxy, cli, env }
}

/** Creates a thread of the account that no run opened (its metadata names another run); returns its id. */
export const usersOwnThread = async (s: StandIn, env: NodeJS.ProcessEnv): Promise<string> => {
  const [name, value] = env["EVAL_AUTH_HEADER"]!.split(": ")
  const answer = await fetch(`${s.url}/threads`, {
    method: "POST",
    headers: { "content-type": "application/json", [name!]: value! },
    body: JSON.stringify({ metadata: { turn_eval_run: "someone-else", owner: "me" } })
  })
  if (!answer.ok) throw new Error(`the app did not create the account's own thread: HTTP ${answer.status}`)
  return ((await answer.json()) as { thread_id: string }).thread_id
}
