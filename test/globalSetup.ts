/**
 * Builds the bundled bin and the library entries once, so end-to-end tests run the CLI exactly as a
 * user's `npx` would. Type declarations are left out: only the package test needs them, and it packs
 * a full build of its own.
 */
import { execFileSync } from "node:child_process"

export default function setup(): void {
  execFileSync(process.execPath, ["scripts/build.mjs", "--no-types"], { stdio: "inherit" })
}
