// Stands in for the YAML, TOML and INI parsers in the bundled bin: @effect/cli reads configuration
// files with them, which `eval` never does, and they are a quarter of what the bin would parse at
// start-up.
export const parse = () => {
  throw new Error("configuration files are not read by this program")
}
