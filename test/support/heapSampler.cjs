// Preloaded into a CLI process under test (node --expose-gc -r this): every 200 ms it collects
// garbage and notes the heap still in use, so a test can tell memory that is kept from memory that
// is merely not yet collected. On exit it writes the peaks to $HEAP_SAMPLE_FILE.
const { writeFileSync } = require("node:fs")
let peakHeap = 0
let peakRss = 0
const sample = () => {
  global.gc()
  const memory = process.memoryUsage()
  peakHeap = Math.max(peakHeap, memory.heapUsed)
  peakRss = Math.max(peakRss, memory.rss)
}
setInterval(sample, 200).unref()
process.on("exit", () => {
  sample()
  writeFileSync(
    process.env.HEAP_SAMPLE_FILE,
    JSON.stringify({ heapMiB: peakHeap / 1048576, rssMiB: peakRss / 1048576 })
  )
})
