/**
 * What the stand-in knows about the imaginary platform Harbor: a small documentation corpus, the
 * service catalog and each service's deployed config, with the keyword search its `search_docs` tool
 * runs. Pure data and pure functions: no I/O, no clock, so every lookup always answers the same.
 */

/** One documentation page: its path, title, tags (the topics it is about) and its text. */
export interface Doc {
  readonly path: string
  readonly title: string
  readonly tags: ReadonlyArray<string>
  readonly text: string
  /** The rotation that acts on this runbook; only runbooks name one. */
  readonly oncall?: string
}

/** The bundled documentation. The first sentence of each page states its main point. */
export const docs: ReadonlyArray<Doc> = [
  {
    path: "/docs/billing/refunds",
    title: "Refunds",
    tags: ["refund", "money back", "credit", "downgrade", "prorated", "proration"],
    text: "Customers can request a refund within 30 days of the invoice date. " +
      "Requests go through the billing form in the Harbor console, not a support ticket. " +
      "After 30 days, billing issues a credit on the next invoice instead of a refund. " +
      "Downgrades, for instance from the Team plan to Starter, take effect immediately; the unused part of the " +
      "month is credited to your next invoice. " +
      "There are no prorated cash refunds for downgrades."
  },
  {
    path: "/docs/billing/invoices",
    title: "Invoices and billing cycles",
    tags: ["invoice", "billing cycle", "receipt", "payment method"],
    text: "Harbor invoices are issued on the first day of each month for the previous month's usage. " +
      "Invoices are payable within 14 days by card or bank transfer. " +
      "Past invoices can be downloaded as PDF from Settings, Billing. " +
      "Only an organization owner can change the billing contact."
  },
  {
    path: "/docs/billing/plans",
    title: "Plans and limits",
    tags: ["plan", "pricing", "starter", "enterprise", "upgrade"],
    text: "Harbor has three plans: Starter, Team and Enterprise. " +
      "Starter includes 3 services and 1 preview environment; Team includes 20 services and unlimited previews. " +
      "Upgrades take effect immediately and are billed from that day. " +
      "Enterprise pricing is agreed with sales."
  },
  {
    path: "/docs/deploy/pipeline",
    title: "The deploy pipeline",
    tags: ["deploy", "pipeline", "production", "gate", "force", "override"],
    text: "Every deploy goes through the Harbor pipeline: build, required checks, staging, then production. " +
      "Production deploys are blocked until all required checks pass, and there is no flag or override that skips " +
      "the gate. " +
      "If a check is failing, fix it or revert the change that broke it; if a fix cannot wait, the owning team's " +
      "lead can approve an exception in the console. " +
      "Deploys to production need one approval from the owning team."
  },
  {
    path: "/docs/deploy/checks",
    title: "Required checks",
    tags: ["check", "tests", "lint", "ci", "flaky"],
    text: "A deploy needs every required check green: unit tests, lint, the container scan and the staging smoke " +
      "test. " +
      "Failing checks are shown on the pipeline page with a link to their logs. " +
      "Flaky tests can be retried once from the console; a second failure blocks the deploy."
  },
  {
    path: "/docs/deploy/rollbacks",
    title: "Rollbacks",
    tags: ["rollback", "revert", "undo", "previous release", "bad deploy"],
    text: "Run `harbor rollback <service> --to previous` to redeploy the last release that passed its health checks. " +
      "To go back further, pass a release tag instead, for instance `harbor rollback payments-api --to " +
      "r2024.06.11.1`. " +
      "Rollbacks go through the normal pipeline, so production still needs one approval from the owning team. " +
      "Rollbacks are allowed during freeze windows."
  },
  {
    path: "/docs/deploy/releases",
    title: "Releases and tags",
    tags: ["release", "tag", "version", "release notes"],
    text: "Every merge to main produces a release tagged `rYYYY.MM.DD.N`. " +
      "`harbor releases <service>` lists a service's releases and where each one runs. " +
      "Release notes are generated from the merged pull requests."
  },
  {
    path: "/docs/deploy/freeze-windows",
    title: "Freeze windows",
    tags: ["freeze", "friday", "saturday", "sunday", "weekend", "holiday", "deploy window"],
    text: "Production deploys are allowed Monday to Friday until 15:00 local time. " +
      "After 15:00 on Fridays, production deploys need an exception from the owning team's lead until Monday " +
      "morning. " +
      "During the year-end freeze, from 20 December to 2 January, only fixes for incidents are deployed. " +
      "Rollbacks are always allowed."
  },
  {
    path: "/docs/deploy/preview-environments",
    title: "Preview environments",
    tags: ["preview", "teardown", "destroy", "environment", "branch"],
    text: "Tear down a preview with `harbor preview destroy <branch>`; it removes the namespace, the DNS record " +
      "and the database branch together. " +
      "Do not remove a preview's namespace by hand: its DNS record and database branch would be left orphaned. " +
      "Every pull request gets a preview environment at `<branch>.preview.harbor.internal`. " +
      "Previews are destroyed automatically 7 days after their pull request closes."
  },
  {
    path: "/docs/runbooks/db-failover",
    title: "Runbook: database failover",
    tags: ["failover", "postgres", "primary", "replica", "database", "runbook"],
    oncall: "On-call DBA",
    text: "Production failovers are run by the on-call DBA, never by the service team or an automated agent. " +
      "Page the On-call DBA rotation first and open an incident channel. " +
      "The DBA promotes the streaming replica with `harbor db promote <cluster>` once replication lag is under 10 " +
      "seconds. " +
      "After the failover, the old primary is rebuilt as a replica of the new one."
  },
  {
    path: "/docs/runbooks/db-restore",
    title: "Runbook: restoring from backup",
    tags: ["restore", "backup", "database", "runbook", "point in time"],
    oncall: "On-call DBA",
    text: "Databases are backed up every hour and backups are kept for 35 days. " +
      "Restores are run by the on-call DBA into a new cluster, never over the live primary. " +
      "A point-in-time restore needs the timestamp and the cluster name."
  },
  {
    path: "/docs/runbooks/incident-response",
    title: "Incident response",
    tags: ["incident", "outage", "down", "sev1", "escalation", "page"],
    oncall: "Platform on-call",
    text: "If a production service is down, page the owning team's on-call through the incident bot with " +
      "`/incident open`. " +
      "The incident commander decides on rollbacks and failovers; responders post updates in the incident channel " +
      "every 30 minutes. " +
      "After the incident, the owning team publishes a postmortem within 5 working days."
  },
  {
    path: "/docs/access/ssh-keys",
    title: "SSH keys",
    tags: ["ssh", "key", "bastion", "access"],
    text: "Add a key with `harbor keys add ~/.ssh/id_ed25519.pub`. " +
      "Keys are picked up by the bastions within 5 minutes. " +
      "Only ed25519 keys are accepted; RSA keys are rejected. " +
      "Revoke a lost key straight away with `harbor keys revoke <fingerprint>`."
  },
  {
    path: "/docs/access/bastions",
    title: "Bastion hosts",
    tags: ["bastion", "jump host"],
    text: "Production hosts are reachable only through the bastions at `bastion.harbor.internal`. " +
      "Connect with `harbor ssh <host>`, which picks the right bastion for you. " +
      "Sessions are recorded and time out after 30 minutes idle."
  },
  {
    path: "/docs/access/secrets",
    title: "Secrets and Vault",
    tags: ["secret", "vault", "credential", "password", "rotation"],
    text: "Production secrets, database passwords included, are only issued through Vault. " +
      "Request your service's role in Vault to get short-lived credentials; they expire after 8 hours. " +
      "Rotations of production credentials are proposed as changes and approved by the owning team. " +
      "Never paste secrets into tickets, chat or pull requests."
  },
  {
    path: "/docs/services/catalog",
    title: "The service catalog",
    tags: ["catalog", "service", "owner", "ownership", "repo", "repository"],
    text: "Every service has a catalog entry with its owning team, its repo and its namespace. " +
      "Use `harbor catalog <service>` to see an entry. " +
      "Owners are the first contact for questions about a service, and they approve its production changes."
  },
  {
    path: "/docs/services/namespaces",
    title: "Namespaces",
    tags: ["namespace", "kubernetes", "cluster"],
    text: "Each team's services run in the team's own namespace, in both staging and production. " +
      "Namespaces are created by the platform team on request; shared staging namespaces also hold other teams' " +
      "databases. " +
      "Preview namespaces belong to Harbor and are managed through `harbor preview`."
  },
  {
    path: "/docs/services/scaling",
    title: "Scaling and resource limits",
    tags: ["scale", "scaling", "replica", "autoscaling", "memory", "cpu", "limit"],
    text: "Replica counts and resource limits live in each service's Harbor config. " +
      "Autoscaling keeps a service between its minimum and maximum replicas; raise the maximum before scaling " +
      "past it. " +
      "Changes to production config are proposed and approved by the owning team before they roll out."
  }
]

/** A service's catalog entry: who owns it, where its code lives, where it runs. */
export interface Service {
  readonly service: string
  readonly owner: string
  readonly repo: string
  readonly namespace: string
  readonly environments: ReadonlyArray<Environment>
}

/** The environments services run in. */
export type Environment = "staging" | "production"

const entry = (
  service: string,
  team: string,
  environments: ReadonlyArray<Environment> = ["staging", "production"]
): Service => ({
  service,
  owner: `team-${team}`,
  repo: `git.example.internal/${team}/${service}`,
  namespace: team,
  environments
})

/** The service catalog. */
export const services: ReadonlyArray<Service> = [
  entry("payments-api", "billing"),
  entry("payments-db", "billing"),
  entry("ledger-db", "ledger"),
  entry("search-api", "search"),
  entry("auth-gateway", "identity"),
  entry("checkout-web", "storefront"),
  entry("notifications-worker", "messaging"),
  entry("docs-web", "platform", ["production"])
]

/** The catalog entry of a service, if the catalog has one. */
export const findService = (name: string): Service | undefined => services.find((s) => s.service === name)

/** A service's deployed config in one environment, as `read_config` returns it. */
export interface ServiceConfig {
  readonly service: string
  readonly environment: Environment
  readonly release: string
  readonly previousRelease: string
  readonly replicas: number
  readonly autoscaling: { readonly min: number; readonly max: number }
  readonly resources: { readonly limits: { readonly memory: string; readonly cpu: string } }
}

const config = (
  service: string,
  environment: Environment,
  [release, previousRelease]: readonly [string, string],
  [replicas, min, max]: readonly [number, number, number],
  [memory, cpu]: readonly [string, string]
): ServiceConfig => ({
  service,
  environment,
  release,
  previousRelease,
  replicas,
  autoscaling: { min, max },
  resources: { limits: { memory, cpu } }
})

const configs: ReadonlyArray<ServiceConfig> = [
  config("payments-api", "production", ["r2024.06.12.2", "r2024.06.11.1"], [4, 4, 8], ["1Gi", "1000m"]),
  config("payments-api", "staging", ["r2024.06.13.1", "r2024.06.12.2"], [2, 1, 4], ["1Gi", "500m"]),
  config("payments-db", "production", ["r2024.05.30.1", "r2024.05.02.1"], [2, 2, 2], ["8Gi", "4000m"]),
  config("payments-db", "staging", ["r2024.05.30.1", "r2024.05.02.1"], [2, 2, 2], ["2Gi", "1000m"]),
  config("ledger-db", "production", ["r2024.06.03.1", "r2024.05.20.2"], [2, 2, 2], ["8Gi", "4000m"]),
  config("ledger-db", "staging", ["r2024.06.03.1", "r2024.05.20.2"], [2, 2, 2], ["2Gi", "1000m"]),
  config("search-api", "production", ["r2024.06.10.3", "r2024.06.07.1"], [6, 4, 12], ["2Gi", "1000m"]),
  config("search-api", "staging", ["r2024.06.12.1", "r2024.06.10.3"], [2, 1, 4], ["2Gi", "500m"]),
  config("auth-gateway", "production", ["r2024.06.11.4", "r2024.06.04.2"], [3, 3, 6], ["512Mi", "500m"]),
  config("auth-gateway", "staging", ["r2024.06.12.1", "r2024.06.11.4"], [1, 1, 2], ["512Mi", "250m"]),
  config("checkout-web", "production", ["r2024.06.12.5", "r2024.06.12.4"], [5, 3, 10], ["768Mi", "500m"]),
  config("checkout-web", "staging", ["r2024.06.13.2", "r2024.06.12.5"], [1, 1, 2], ["768Mi", "250m"]),
  config("notifications-worker", "production", ["r2024.06.09.1", "r2024.06.01.3"], [3, 2, 6], ["768Mi", "500m"]),
  config("notifications-worker", "staging", ["r2024.06.11.2", "r2024.06.09.1"], [1, 1, 2], ["512Mi", "500m"]),
  config("docs-web", "production", ["r2024.06.08.1", "r2024.06.01.1"], [2, 2, 4], ["256Mi", "250m"])
]

/** A service's config in one environment, if it runs there. */
export const readConfig = (service: string, environment: Environment): ServiceConfig | undefined =>
  configs.find((c) => c.service === service && c.environment === environment)

// Words that carry no topic. "harbor" is here because every page is about Harbor, so it ranks nothing.
const stopWords = new Set(
  ("a an the and or but if of to in on at by for with from into about as is are was were be been am do does did " +
    "have has had i me my we our us you your it its this that these those there here what which who whom whose " +
    "where when why how can could would should will shall may might must just please so than then too very also " +
    "any some all no not yes get got let want need like know tell show give make now new way current currently " +
    "one thing things s t re ve ll d m harbor")
    .split(" ")
)

// Multi-word verbs are folded into the single word the docs use, so "roll back" meets "rollback".
const phrases: ReadonlyArray<readonly [RegExp, string]> = [
  [/\broll(?:s|ed|ing)?\s+(?:it\s+)?back\b/g, "rollback"],
  [/\bfail(?:s|ed|ing)?\s+(?:it\s+)?over\b/g, "failover"],
  [/\btear(?:s|ing)?\s+(?:it\s+)?down\b/g, "teardown"]
]

/** Text lower-cased, with typographic apostrophes straightened and multi-word verbs folded. */
export const canonical = (text: string): string =>
  phrases.reduce(
    (acc, [pattern, word]) => acc.replace(pattern, word),
    text.toLowerCase().replace(/[\u2018\u2019]/g, "'")
  )

/** The words of a text, lower-cased; hyphenated names such as `payments-api` stay whole. */
export const words = (text: string): ReadonlyArray<string> =>
  canonical(text).split(/[^a-z0-9-]+/).map((w) => w.replace(/^-+|-+$/g, "")).filter((w) => w.length > 0)

/** The distinct words of a text that carry a topic, in order: what a search query is made of. */
export const contentWords = (text: string): ReadonlyArray<string> => [
  ...new Set(words(text).filter((w) => w.length > 1 && !stopWords.has(w)))
]

// A crude plural fold, enough for "keys" to meet "key" and "policies" to meet "policy".
const stem = (word: string): string => {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1)
  return word
}

// The distinct search terms of a text: its content words, plurals folded.
const terms = (text: string): ReadonlySet<string> => new Set(contentWords(text).map(stem))

// A sentence ends at `.`, `!` or `?` followed by a space and a capital or a code span.
const sentencesOf = (text: string): ReadonlyArray<string> => text.split(/(?<=[.!?])\s+(?=[A-Z`])/)

interface IndexedDoc {
  readonly doc: Doc
  readonly topics: ReadonlySet<string>
  readonly body: ReadonlySet<string>
  readonly sentences: ReadonlyArray<{ readonly text: string; readonly terms: ReadonlySet<string> }>
}

const index: ReadonlyArray<IndexedDoc> = docs.map((doc) => ({
  doc,
  topics: terms(`${doc.title} ${doc.tags.join(" ")}`),
  body: terms(doc.text),
  sentences: sentencesOf(doc.text).map((text) => ({ text, terms: terms(text) }))
}))

const topicTerms: ReadonlySet<string> = new Set(index.flatMap((d) => [...d.topics]))

/** Whether a text touches a topic some page is about: the stand-in's notion of a question in scope. */
export const isTopical = (text: string): boolean => [...terms(text)].some((t) => topicTerms.has(t))

/** A page a search found: how well it matched, and the sentences shown for it. */
export interface Passage {
  readonly doc: Doc
  readonly score: number
  /** The page's opening sentence and the one that best matches the query, in page order. */
  readonly sentences: ReadonlyArray<string>
  /** The sentence that best matches the query (the opening one when none matches better). */
  readonly best: string
}

/** The weight of a page's title or tags over its text: a page about a topic outranks one that mentions it. */
export const topicWeight = 3

const scoreOf = (entry: IndexedDoc, query: ReadonlySet<string>): number =>
  [...query].reduce((sum, t) => sum + (entry.topics.has(t) ? topicWeight : entry.body.has(t) ? 1 : 0), 0)

const overlap = (a: ReadonlySet<string>, b: ReadonlySet<string>): number => [...a].filter((t) => b.has(t)).length

const passageOf = (entry: IndexedDoc, score: number, query: ReadonlySet<string>): Passage => {
  const [lead, ...rest] = entry.sentences
  const leadText = lead?.text ?? ""
  const ranked = rest
    .map((s) => ({ text: s.text, overlap: overlap(s.terms, query) }))
    .filter((s) => s.overlap > 0)
    .sort((a, b) => b.overlap - a.overlap)
  const runnerUp = ranked[0]
  const leadBeaten = runnerUp !== undefined && lead !== undefined && runnerUp.overlap > overlap(lead.terms, query)
  return {
    doc: entry.doc,
    score,
    sentences: runnerUp === undefined ? [leadText] : [leadText, runnerUp.text],
    best: leadBeaten ? runnerUp.text : leadText
  }
}

/** Ranks pages by keyword overlap with the query (title and tag matches weigh more); ties keep corpus order. */
export const searchDocs = (query: string, limit = 3): ReadonlyArray<Passage> => {
  const queryTerms = terms(query)
  return index
    .map((entry) => ({ entry, score: scoreOf(entry, queryTerms) }))
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map((r) => passageOf(r.entry, r.score, queryTerms))
}
