/**
 * `npm run mutate [group…]`: mutation testing of the pure core, one group at a time (all when none is
 * named), each against its own unit tests. Exits non-zero when a group scores under its threshold.
 */
import { spawnSync } from "node:child_process"
import { groups } from "../stryker/groups.mjs"

const named = process.argv.slice(2)
const unknown = named.filter((name) => !(name in groups))
if (unknown.length > 0) {
  console.error(`unknown mutation group ${unknown.join(", ")}: expected ${Object.keys(groups).join(", ")}`)
  process.exit(2)
}
const failed = []
for (const name of named.length > 0 ? named : Object.keys(groups)) {
  console.log(`\n== mutation group ${name} (break threshold ${groups[name].threshold}%)`)
  const run = spawnSync("npx", ["stryker", "run", "stryker/stryker.config.mjs"], {
    stdio: "inherit",
    env: { ...process.env, MUTATE_GROUP: name }
  })
  if (run.status !== 0) failed.push(name)
}
if (failed.length > 0) {
  console.error(`\nunder threshold or failed: ${failed.join(", ")}`)
  process.exit(1)
}
