import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect } from "effect"
import { HttpLive } from "../src/Runner/Http.js"
import { createServer, request as httpRequest, Agent } from "node:http"
const server = createServer((req, res) => { res.setHeader("content-type", "application/json"); res.end(JSON.stringify({ ok: true, pad: "x".repeat(1500) })) })
server.listen(8792, "127.0.0.1", async () => {
  const n = 3000
  const prog = Effect.gen(function*() {
    const client = (yield* HttpClient.HttpClient).pipe(HttpClient.withTracerPropagation(false), HttpClient.withTracerDisabledWhen(() => true))
    for (let round = 0; round < 3; round++) {
      const cpu0 = process.cpuUsage(); const t = performance.now()
      yield* Effect.forEach(Array.from({ length: n }), () => client.execute(HttpClientRequest.get("http://127.0.0.1:8792/x")).pipe(Effect.flatMap((r) => r.text)), { concurrency: 16, discard: true })
      const cpu = process.cpuUsage(cpu0); console.log("effect", ((cpu.user + cpu.system) / 1000 / n).toFixed(3), "ms cpu/request (incl server)", (performance.now() - t).toFixed(0), "ms")
    }
  }).pipe(Effect.provide(HttpLive))
  await Effect.runPromise(prog)
  const agent = new Agent({ keepAlive: true })
  for (let round = 0; round < 3; round++) {
    const cpu0 = process.cpuUsage(); const t = performance.now()
    let inflight = 0, done = 0, started = 0
    await new Promise<void>((resolve) => {
      const next = () => { if (started >= n) { if (done === n) resolve(); return } started++; inflight++
        httpRequest("http://127.0.0.1:8792/x", { agent }, (res) => { let b = ""; res.setEncoding("utf8"); res.on("data", (c) => b += c); res.on("end", () => { JSON.parse(b); done++; inflight--; next(); if (done === n) resolve() }) }).end() }
      for (let i = 0; i < 16; i++) next()
    })
    const cpu = process.cpuUsage(cpu0); console.log("plain ", ((cpu.user + cpu.system) / 1000 / n).toFixed(3), "ms cpu/request (incl server)", (performance.now() - t).toFixed(0), "ms")
  }
  server.close()
})
