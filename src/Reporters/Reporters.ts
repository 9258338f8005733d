/**
 * The registry of reporters, each once, in the order `--help` lists them: what it writes to standard
 * output, its options and the words `--help` says of it, and its module, loaded only when a report is
 * written (so the command tree, which lists the reporters, loads no renderer). Everything that depends
 * on the set of reporters derives from this record — `--reporter`'s parsing and help, which reports
 * may share standard output, the writing — so a new reporter is its module and one line here.
 */
import type { Reporter } from "./Reporter.js"

/** Every reporter, by name. */
export const reporters = {
  pretty: { stdout: "scorecard", options: {}, load: () => import("./Pretty.js") },
  json: { stdout: "document", options: {}, load: () => import("./Json.js") },
  junit: {
    stdout: "document",
    options: {
      "file-attribute":
        "also writes each testcase's file attribute (GitLab shows it; the Jenkins and Ant schemas reject it)"
    },
    load: () => import("./JUnit.js")
  },
  github: {
    stdout: "annotations",
    noFile: "it annotates through standard output and appends its summary to $GITHUB_STEP_SUMMARY",
    options: {},
    load: () => import("./GitHub.js")
  },
  markdown: { stdout: "document", options: {}, load: () => import("./Markdown.js") },
  html: {
    stdout: "document",
    options: {},
    about: "one self-contained page to open in a browser",
    load: () => import("./Html.js")
  }
} as const satisfies { readonly [name: string]: Reporter }

/** The name of a reporter. */
export type ReporterName = keyof typeof reporters

/** The reporters there are, in the registry's order. */
export const reporterNames = Object.keys(reporters) as ReadonlyArray<ReporterName>

/** An option of some reporter. */
export type ReporterOption = { readonly [N in ReporterName]: keyof typeof reporters[N]["options"] }[ReporterName]

/** The reporter that writes to standard output when no other report does: the scorecard. */
export const defaultReporter: ReporterName = "pretty"

/** The reporter of that name, if there is one. */
export const reporterNamed = (name: string): Reporter | undefined =>
  Object.hasOwn(reporters, name) ? reporters[name as ReporterName] : undefined

/**
 * What `--help` says of the reporters: their names (`pretty (the default), json, … or html`), then
 * what those that need it are, then what each option does.
 */
export const reportersHelp = (): { readonly names: string; readonly notes: ReadonlyArray<string> } => {
  const names = reporterNames.map((name) => name === defaultReporter ? `${name} (the default)` : name)
  const entries = reporterNames.map((name) => [name, reporters[name] as Reporter] as const)
  return {
    names: `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`,
    notes: [
      ...entries.flatMap(([name, reporter]) => reporter.about === undefined ? [] : [`${name} is ${reporter.about}`]),
      ...entries.flatMap(([name, reporter]) =>
        Object.entries(reporter.options).map(([option, what]) => `${name}:${option} ${what}`)
      )
    ]
  }
}
