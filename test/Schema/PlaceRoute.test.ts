/**
 * The one rule for a path a catalog or a journal gives: it stays on the base URL's origin and under
 * its path. `validate` applies it to every route template, naming the JSON path; the transport to
 * every request (test/Runner/RouteOrigin.test.ts tries it over loopback).
 */
import { describe, expect, it } from "@effect/vitest"
import { placeRoute, routeBaseOf } from "../../src/Schema/Protocol.js"
import { catalogProblems } from "../../src/Schema/Validate.js"
import { spellings, staying } from "../support/routeSpellings.js"

const hrefOf = (placed: URL | string) => typeof placed === "string" ? placed : placed.href

describe("placeRoute", () => {
  const app = routeBaseOf(new URL("https://dev.example.test/app/"))

  it("puts a path under the base URL's path, a query kept, the empty path at the base itself", () => {
    expect(hrefOf(placeRoute(app, "/api/chat?id=1"))).toBe("https://dev.example.test/app/api/chat?id=1")
    expect(hrefOf(placeRoute(app, ""))).toBe("https://dev.example.test/app/")
    expect(hrefOf(placeRoute(routeBaseOf(new URL("http://127.0.0.1:5173")), "/"))).toBe("http://127.0.0.1:5173/")
  })

  it("refuses every spelling that names another host or leaves the path, saying why", () => {
    for (const spelling of spellings) {
      expect(placeRoute(app, spelling.path("evil.test")), spelling.name).toBe(spelling.why)
    }
  })

  it("sends the look-alikes, each to the app under its path", () => {
    for (const path of staying) {
      expect(hrefOf(placeRoute(app, path("evil.test"))), path("evil.test")).toMatch(
        /^https:\/\/dev\.example\.test\/app\//
      )
    }
  })
})

describe("validate", () => {
  it("refuses the typo that sends the token to host `api`, naming the JSON path", () => {
    expect(
      catalogProblems({
        surfaces: { support: { protocol: "ai-sdk", endpoint: "//api/chat", tools: [], routes: { delete: null } } }
      })
    )
      .toEqual([{
        path: "$.surfaces.support.endpoint",
        message: "expected a path on the app's origin, under the base URL's path, got \"//api/chat\": it starts with " +
          "\"//\", which names another host"
      }])
  })

  it("refuses a template whose placeholder sits in a dot segment, and takes one with a query", () => {
    expect(catalogProblems({
      surfaces: { docs: { endpoint: "/ask", tools: [] } },
      routes: { conversation: "/c/{conversationId}/..", delete: "/api/chat?id={conversationId}" }
    })).toEqual([{
      path: "$.routes.conversation",
      message: "expected a path on the app's origin, under the base URL's path, got \"/c/{conversationId}/..\": it " +
        "holds a \".\" or \"..\" segment (percent-encoded or not), which would leave the base URL's path"
    }])
  })
})
