/**
 * The files the package ships beside its code — the starter golden set `init` writes, the golden set
 * and floor `demo` falls back on — found from wherever this module runs: a checkout's `src/`, or the
 * bundle's `dist/` in an installed package.
 */
import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const isPackageRoot = (dir: string): boolean => {
  const manifest = join(dir, "package.json")
  if (!existsSync(manifest)) return false
  try {
    return (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === "turn-eval"
  } catch {
    return false
  }
}

let root: string | undefined

/** The package's own folder: the nearest one above this module whose package.json is turn-eval's. */
export const packageRoot = (): string => {
  if (root !== undefined) return root
  for (let dir = dirname(fileURLToPath(import.meta.url));; dir = dirname(dir)) {
    if (isPackageRoot(dir)) return (root = dir)
    if (dirname(dir) === dir) {
      throw new Error(`cannot find the turn-eval package above ${fileURLToPath(import.meta.url)}`)
    }
  }
}

/** A file the package ships, by its path inside the package. */
export const packageFile = (path: string): string => join(packageRoot(), path)
