/**
 * A real headless Chromium for the HTML report's tests: Debian's `chromium` (or `$CHROMIUM`), driven by
 * playwright-core. Each page opened records every request it makes and every console error and
 * uncaught exception, so a test can hold the page to loading nothing and failing nowhere.
 */
import { pathToFileURL } from "node:url"
import { type Browser, chromium, type Page } from "playwright-core"

/** Where the browser is: `$CHROMIUM`, else Debian's package. */
export const chromiumPath = process.env["CHROMIUM"] ?? "/usr/bin/chromium"

/** Starts the browser. */
export const launchBrowser = (): Promise<Browser> =>
  chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] })

/** The viewport every page opens in, so screenshots stay the same from run to run. */
export const viewport = { width: 1280, height: 900 } as const

/** A page opened on a report, and what it did while open. */
export interface OpenedPage {
  readonly page: Page
  /** The file's own URL, the one request a report may make. */
  readonly url: string
  /** Every request the page made, its own included. */
  readonly requests: Array<string>
  /** Console errors and uncaught exceptions. */
  readonly errors: Array<string>
}

/** Opens a report file from `file://` in a fresh context and waits until it has drawn itself. */
export const openReport = async (
  browser: Browser,
  file: string,
  options: { readonly hash?: string; readonly colorScheme?: "light" | "dark" } = {}
): Promise<OpenedPage> => {
  const context = await browser.newContext({ viewport, colorScheme: options.colorScheme ?? "light" })
  const page = await context.newPage()
  const url = pathToFileURL(file).href
  const requests: Array<string> = []
  const errors: Array<string> = []
  page.on("request", (request) => void requests.push(request.url()))
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text())
  })
  page.on("pageerror", (error) => void errors.push(error.message))
  await page.goto(url + (options.hash ?? ""))
  await page.waitForSelector("html[data-ready]", { timeout: 20_000 })
  return { page, url, requests, errors }
}

/** The requests a page made beyond its own file (a fragment is not a request of its own). */
export const foreignRequests = (opened: OpenedPage): ReadonlyArray<string> =>
  opened.requests.filter((url) => url.replace(/#.*$/s, "") !== opened.url)
