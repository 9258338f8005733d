/**
 * Builds the bundled bin and the library entries once, so end-to-end tests run the CLI exactly as a
 * user's `npx` would. Type declarations are left out: only the package test needs them, and it packs
 * a full build of its own. Live runs keep their journal of open conversations in a state folder of
 * the tests' own, never the user's.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export default function setup(): () => void {
  execFileSync(process.execPath, ["scripts/build.mjs", "--no-types"], { stdio: "inherit" })
  const state = mkdtempSync(join(tmpdir(), "eval-state-"))
  process.env["XDG_STATE_HOME"] = state
  return () => rmSync(state, { recursive: true, force: true })
}
