/** What the terminal the CLI writes to can show. */

/**
 * Whether output may be painted. `NO_COLOR` (any value but empty) always wins; else `FORCE_COLOR`
 * decides where it is set (`0` or `false` off; `1`, `2`, `3`, `true` or empty on, as Node reads it),
 * so a CI log that renders colour can have it off a terminal; else colour only on a terminal.
 */
export const useColor = (): boolean => {
  if ((process.env["NO_COLOR"] ?? "") !== "") return false
  const force = process.env["FORCE_COLOR"]
  if (force !== undefined) {
    const value = force.trim().toLowerCase()
    if (value === "0" || value === "false") return false
    if (["", "1", "2", "3", "true"].includes(value)) return true
  }
  return process.stdout.isTTY === true
}
