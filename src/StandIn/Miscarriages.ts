/**
 * How the stand-in can be made to carry out a decision on a proposal wrongly (`Flaws.ts` carries them
 * out), so that each fact of `runs-as-proposed` can be shown failing: a list of names only, so that the
 * CLI's options name them without loading the stand-in.
 */

/** How the stand-in can be made to carry out a decision wrongly. */
export const miscarriages = ["another-input", "twice", "not-run", "also-gated", "after-denial"] as const
/** How the stand-in can be made to carry out a decision wrongly. */
export type Miscarriage = (typeof miscarriages)[number]
