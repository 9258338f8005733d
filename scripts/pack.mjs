// Packs the package as it is published: the full build, then a tarball whose manifest keeps what an
// install reads and leaves out what only a checkout uses, `scripts` and `devDependencies`. A tarball
// that kept `prepare` would have npm 11 flag an install script whose build script is not shipped.
//
// The working package.json is never rewritten, so a failed build or pack cannot leave it half-edited:
// the package is staged in a temporary folder (the files `files` names and the manifest without those
// two fields), packed from there, and the folder deleted whatever happened.
//
//   node scripts/pack.mjs [--pack-destination DIR]   npm run package: writes turn-eval-<version>.tgz
//   node scripts/pack.mjs --refuse-publish           npm's prepublishOnly: `npm publish` in the checkout
//                                                    would ship the working manifest, so it is refused
import { execFileSync } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const args = process.argv.slice(2)
const manifest = JSON.parse(readFileSync("package.json", "utf8"))
const tarball = `${manifest.name}-${manifest.version}.tgz`

if (args.includes("--refuse-publish")) {
  process.stderr.write(
    `${manifest.name}: publish the tarball \`npm run package\` writes (npm publish ${tarball}), whose manifest ` +
      "has no dev scripts; `npm publish` in the checkout would ship them\n"
  )
  process.exit(1)
}

const at = args.indexOf("--pack-destination")
const destination = resolve(at >= 0 ? args[at + 1] ?? "." : ".")

/** The manifest a user installs: the working one without what only a checkout runs or installs. */
const published = (working) => {
  const { scripts: _scripts, devDependencies: _devDependencies, ...rest } = working
  return rest
}

execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" })
const staging = mkdtempSync(join(tmpdir(), `${manifest.name}-pack-`))
try {
  for (const entry of manifest.files) {
    if (existsSync(entry)) cpSync(entry, join(staging, entry), { recursive: true })
  }
  writeFileSync(join(staging, "package.json"), `${JSON.stringify(published(manifest), null, 2)}\n`)
  execFileSync("npm", ["pack", "--pack-destination", destination], {
    cwd: staging,
    stdio: ["ignore", "ignore", "inherit"]
  })
} finally {
  rmSync(staging, { recursive: true, force: true })
}
process.stdout.write(`${join(destination, tarball)}\n`)
