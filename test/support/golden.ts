/** What the committed golden set does on its recorded turns (cases/fixtures), as the tests expect it. */

/** The cases that fail on the recorded turns, in the golden set's order. */
export const failingOnFixtures: ReadonlyArray<string> = [
  "docs.refund-proration-no-retired-page",
  "docs.where-search-api-repo-catalog",
  "docs.force-deploy-no-invented-flag",
  "agent.scale-search-api-stops-at-approval"
]
