/**
 * The command definitions of `eval candidates` and `eval propose`: their options and descriptions.
 * The handlers (src/Commands/Propose.ts) load when their command runs, so start-up stays fast.
 */
import { Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { defaultCasesFile, defaultSurfacesFile } from "../Runner/GoldenSet.js"
import type { CandidatesArgs, ProposeArgs } from "./Propose.js"

const baseUrlOption = Options.text("base-url").pipe(
  Options.withPseudoName("URL"),
  Options.withDescription("The app at this URL (a path in it prefixes every route), read as the signed-in user.")
)
const cookieOption = Options.redacted("cookie").pipe(
  Options.withPseudoName("NAME=VALUE"),
  Options.optional,
  Options.withDescription(
    "The session cookie. Prefer the EVAL_COOKIE environment variable: arguments are visible to other users."
  )
)
const surfacesOption = Options.text("surfaces").pipe(
  Options.withPseudoName("FILE"),
  Options.withDefault(defaultSurfacesFile),
  Options.withDescription("The surface catalog: its surfaces, and the app's routes when they differ from the defaults.")
)
const casesOption = Options.text("cases").pipe(
  Options.withPseudoName("FILE"),
  Options.withDefault(defaultCasesFile),
  Options.withDescription("The golden set the draft is made for, and --append adds it to.")
)
const turnOption = Options.text("turn").pipe(
  Options.withPseudoName("TURN-ID"),
  Options.withDescription("The rated turn to draft a case from (eval candidates lists them).")
)
const fixturesOption = Options.text("fixtures").pipe(
  Options.withPseudoName("DIR"),
  Options.withDefault("cases/fixtures"),
  Options.withDescription("Where --append records the rated turn, as <case id>.json.")
)
const idOption = Options.text("id").pipe(
  Options.withPseudoName("CASE-ID"),
  Options.optional,
  Options.withDescription("The new case's id (default: the surface and the question's words).")
)
const appendOption = Options.boolean("append").pipe(
  Options.withDescription(
    "Check the draft against the catalog, add it to the golden set and record the rated turn. Without it nothing is written."
  )
)

// Handlers, loaded when their command runs, like the others in src/Cli.ts.
const candidatesHandler = (args: CandidatesArgs) =>
  Effect.flatMap(Effect.promise(() => import("./Propose.js")), (m) => m.candidatesHandler(args))
const proposeHandler = (args: ProposeArgs) =>
  Effect.flatMap(Effect.promise(() => import("./Propose.js")), (m) => m.proposeHandler(args))

/** `eval candidates`: the turns users rated thumbs-down in a live app. */
export const candidatesCommand = Command.make("candidates", {
  baseUrl: baseUrlOption,
  cookie: cookieOption,
  surfaces: surfacesOption
}, candidatesHandler).pipe(
  Command.withDescription(
    "List the turns users rated thumbs-down in the app (turn, conversation, comment), to draft cases from. Example: EVAL_COOKIE='session=…' eval candidates --base-url http://127.0.0.1:5173"
  )
)

/** `eval propose`: a case drafted from a rated turn, printed, or added with `--append`. */
export const proposeCommand = Command.make("propose", {
  turn: turnOption,
  baseUrl: baseUrlOption,
  cookie: cookieOption,
  cases: casesOption,
  surfaces: surfacesOption,
  fixtures: fixturesOption,
  id: idOption,
  append: appendOption
}, proposeHandler).pipe(
  Command.withDescription(
    "Draft a case from a thumbs-down turn: the facts it broke and held, marked as drafted; --append adds it to the golden set with the turn recorded. Example: eval propose --turn turn_8f2 --base-url http://127.0.0.1:5173 --append"
  )
)
