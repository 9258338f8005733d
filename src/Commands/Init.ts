/**
 * `init`: a starter project in the current folder — a golden set of two questions to one surface,
 * its catalog, a floor, a recorded turn for each (one of them failing) and a GitHub Actions workflow
 * that grades them — so the suite runs in a folder that had nothing. A file that exists is never
 * overwritten: it is left as it is and reported.
 */
import { FileSystem, Path } from "@effect/platform"
import { Console, Effect } from "effect"
import { describeFileError } from "../Files.js"
import { packageFile } from "../PackageFiles.js"
import { programName } from "../ProgramName.js"
import { BadInput } from "../Schema/Errors.js"

/** What `init` writes: each file's place in the project, and the template it is copied from. */
export const starterFiles: ReadonlyArray<{ readonly target: string; readonly template: string }> = [
  { target: "cases/golden-cases.json", template: "templates/starter/golden-cases.json" },
  { target: "cases/surfaces.json", template: "templates/starter/surfaces.json" },
  {
    target: "cases/fixtures/docs.refund-window-cites-source.json",
    template: "templates/starter/fixtures/docs.refund-window-cites-source.json"
  },
  {
    target: "cases/fixtures/docs.refund-proration-no-retired-page.json",
    template: "templates/starter/fixtures/docs.refund-proration-no-retired-page.json"
  },
  { target: "baseline.json", template: "templates/starter/baseline.json" },
  { target: ".github/workflows/turn-eval.yml", template: "templates/starter/workflow.yml" }
]

/** The commands a user runs next, each with what it does, naming the program as it was invoked. */
export const nextCommands = (program: string): ReadonlyArray<readonly [command: string, what: string]> => [
  [
    `${program} run --fixtures cases/fixtures --check`,
    "grade the recorded turns against the floor; one fails: it cites a page it never retrieved"
  ],
  [`${program} demo`, "ask the golden set live of the built-in stand-in assistant"],
  [
    `EVAL_COOKIE='session=…' ${program} run --base-url http://127.0.0.1:5173 --check`,
    "your own app, once cases/ describes its surfaces and questions"
  ]
]

/** `init`: writes the starter files that do not exist yet and prints what to run next. */
export const initHandler = (_: object): Effect.Effect<void, BadInput, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const cannot = (file: string, what: string) => new BadInput({ file, problems: [{ path: "", message: what }] })
    for (const { target, template } of starterFiles) {
      const source = packageFile(template)
      const text = yield* fs.readFileString(source).pipe(
        Effect.mapError((error) =>
          cannot(source, `cannot read the package's starter file: ${describeFileError(error)}`)
        )
      )
      yield* fs.makeDirectory(path.dirname(target), { recursive: true }).pipe(
        Effect.mapError((error) => cannot(path.dirname(target), `cannot make the folder: ${describeFileError(error)}`))
      )
      // Created only if absent ("wx"): nothing the user has is ever replaced, even by a race.
      const written = yield* fs.writeFileString(target, text, { flag: "wx" }).pipe(
        Effect.as(true),
        Effect.catchIf(
          (error) => error._tag === "SystemError" && error.reason === "AlreadyExists",
          () => Effect.succeed(false)
        ),
        Effect.mapError((error) => cannot(target, `cannot write: ${describeFileError(error)}`))
      )
      yield* Console.log(written ? `wrote ${target}` : `kept  ${target} (it exists; not overwritten)`)
    }
    yield* Console.log(
      ["", "next:", ...nextCommands(programName).flatMap(([command, what]) => [`  ${command}`, `      ${what}`])].join(
        "\n"
      )
    )
  })
