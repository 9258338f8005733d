/** A result with its wall times (`durationMs`, anywhere in it) left out: what two runs of the same turns agree on. */
export const untimed = <A>(value: A): A =>
  JSON.parse(JSON.stringify(value, (key, v: unknown) => (key === "durationMs" ? undefined : v))) as A
