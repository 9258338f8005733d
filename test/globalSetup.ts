/** Builds the bundled bin once, so end-to-end tests run the CLI exactly as a user's `npx` would. */
import { execFileSync } from "node:child_process"

export default function setup(): void {
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" })
}
