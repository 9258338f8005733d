// Preloaded into a measured process (node --require bench/peak.cjs): on exit it writes the process's
// peak resident memory, as the kernel counts it, to $BENCH_PEAK_FILE.
const { writeFileSync } = require("node:fs")
process.on("exit", () => {
  if (process.env.BENCH_PEAK_FILE) writeFileSync(process.env.BENCH_PEAK_FILE, String(process.resourceUsage().maxRSS))
})
