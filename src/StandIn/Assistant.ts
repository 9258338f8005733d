/**
 * The stand-in's deterministic assistant: what a turn of each surface does for a question. Pure: the
 * same surface and question always give the same answer and trace (less the ids the server assigns).
 *
 * It is driven by a few readable rules, in order: small talk gets a short reply; requests for
 * credentials, and on the agent bulk deletes, are refused; on the agent, incidents are handed to a
 * person and change requests become a proposal that waits for approval; questions naming a service
 * go to the catalog (and, on the agent, the service's config); anything else touching a topic of the
 * docs is answered from a search and cited; the rest is declined as out of scope. Answers are built
 * from what the tools returned; of the question's own text they repeat only a service name, a number
 * or a release tag picked out by pattern, so nothing else the asker typed is echoed back as advice.
 */
import { proposedActions } from "../Graders/RunsAsProposed.js"
import { fnv1a } from "../Hash.js"
import type { Citation, Proposal, ToolExecution, Usage } from "../Schema/Trace.js"
import { plural } from "../Words.js"
import {
  canonical,
  contentWords,
  type Environment,
  findService,
  isTopical,
  type Passage,
  readConfig,
  searchDocs,
  type Service,
  type ServiceConfig,
  topicWeight,
  words
} from "./Corpus.js"

/** What one turn of the stand-in did, before the server gives it a turn id. */
export interface AssistantTurn {
  readonly answer: string
  readonly outcome: string
  readonly citations: ReadonlyArray<Citation>
  readonly toolExecutions: ReadonlyArray<ToolExecution>
  readonly proposal: Proposal | null
  /** The tokens its model calls used, as a trace records them. */
  readonly usage?: Usage
}

/**
 * Answers `question` as the stand-in's surface `surface` would; `earlier` are the questions asked
 * before it in the same conversation, latest last: a follow-up that names no service or environment
 * ("and is it healthy now?") is about those the conversation last named.
 */
export const respond = (surface: string, question: string, earlier: ReadonlyArray<string> = []): AssistantTurn => {
  const asked = inContext(parse(surface, question), earlier.map((q) => parse(surface, q)))
  switch (surface) {
    case "docs":
      return withUsage(question, docsTurn(asked))
    case "ops-agent":
      return withUsage(question, agentTurn(asked))
    default:
      return refused("This assistant has no surface by that name, so nothing was run.")
  }
}

/** Tokens as a model would count them, near enough: one for every four characters. */
const tokensIn = (text: string): number => Math.ceil(text.length / 4)

/** The instructions every model call of the stand-in starts with, in tokens. */
const instructionTokens = 420

/**
 * The usage of a turn as a model would report it: one call to choose the tools and one more after
 * they ran, each reading the instructions, the question and what the tools returned so far; the last
 * writes the answer.
 */
const withUsage = (question: string, turn: AssistantTurn): AssistantTurn => {
  const results = turn.toolExecutions.map((e) => tokensIn(JSON.stringify(e.output ?? e.error ?? null)))
  const calls = turn.toolExecutions.length === 0 ? 1 : 2
  const inputTokens = calls * (instructionTokens + tokensIn(question)) + results.reduce((a, b) => a + b, 0)
  return { ...turn, usage: { inputTokens, outputTokens: tokensIn(turn.answer) } }
}

// ---------------------------------------------------------------------------------------------
// Reading the question

interface Asked {
  readonly surface: string
  readonly question: string
  /** The question lower-cased and folded, without a leading "thanks" or "hi". */
  readonly body: string
  readonly opener: "thanks" | "greeting" | undefined
  /** Catalog services the question names, plus unknown names shaped like one (`foo-api`). */
  readonly services: ReadonlyArray<string>
  readonly environment: Environment
}

const thanksOpener = /^(?:thanks|thank you|thank u|thx|ty|cheers|great|awesome|perfect|nice|cool|ok|okay)\b[\s,.!]*/
const greetingOpener = /^(?:hi|hello|hey|good (?:morning|afternoon|evening))\b[\s,.!]*/

// Names the catalog does not know are still treated as services when they look like one, so a
// lookup runs and says so, instead of a search guessing at a page.
const serviceShaped = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*-(?:api|web|worker|db|gateway|service|svc|app|ui|cache|queue)$/

const parse = (surface: string, question: string): Asked => {
  const folded = canonical(question.trim())
  const opener = thanksOpener.test(folded) ? "thanks" : greetingOpener.test(folded) ? "greeting" : undefined
  const body = folded.replace(thanksOpener, "").replace(greetingOpener, "")
  return {
    surface,
    question,
    body,
    opener,
    services: [...new Set(words(question).filter((w) => findService(w) !== undefined || serviceShaped.test(w)))],
    environment: /\b(?:staging|stage)\b/.test(folded) ? "staging" : "production"
  }
}

/**
 * A follow-up read with what the conversation named before it: a follow-up that names no service is
 * about the service last named, and what was asked of it ("and in staging?" asks the replicas again);
 * its environment is its own, or the one last named.
 */
const inContext = (asked: Asked, earlier: ReadonlyArray<Asked>): Asked => {
  if (earlier.length === 0) return asked
  const named = asked.services.length > 0 ? undefined : [...earlier].reverse().find((e) => e.services.length > 0)
  const environment = /\b(?:staging|stage|production|prod)\b/.test(asked.body)
    ? asked.environment
    : [...earlier].reverse().find((e) => /\b(?:staging|stage|production|prod)\b/.test(e.body))?.environment ??
      asked.environment
  return named === undefined
    ? { ...asked, environment }
    : { ...asked, body: `${asked.body} (${named.body})`, services: named.services, environment }
}

/** A person's answer to a proposal: approved, or denied with why. */
export type Decision = { readonly approved: true } | { readonly approved: false; readonly reason: string }

/**
 * What the agent does with a person's answer to its proposal: approved, it runs each action as proposed
 * and says so; denied, it runs nothing and says what it left alone. Either way nothing is pending after.
 */
export const decide = (proposal: Proposal, decision: Decision): AssistantTurn => {
  const summary = lowerFirst(proposal.summary ?? "make the change")
  const id = `\`${proposal.id}\``
  if (!decision.approved) {
    return turnOf(`Understood: I won't ${summary}. Nothing was changed, and proposal ${id} is withdrawn.`, "answered")
  }
  const ran = proposedActions(proposal).map((a) =>
    succeeded(a.tool, a.input ?? {}, { applied: true, proposalId: proposal.id })
  )
  return turnOf(`Done: I went ahead to ${summary}, as approved in proposal ${id}.`, "answered", ran)
}

const questionStart = new RegExp(
  "^(?:how|what|what's|whats|where|where's|who|who's|which|why|when|is|are|was|were|do|does|did|can|could|" +
    "should|may|might|am|will|would|have|has)\\b"
)
const politeRequest = /^(?:please|can you|could you|would you|will you|kindly|go ahead)\b/

/** A request asks the assistant to do something; a question only asks to be told. */
const isRequest = (asked: Asked): boolean =>
  politeRequest.test(asked.body) || !(questionStart.test(asked.body) || asked.body.includes("?"))

/** Thanks or a greeting with nothing Harbor-related in it. */
const isSmallTalk = (asked: Asked): boolean =>
  asked.opener !== undefined && !asked.body.includes("?") && !isTopical(asked.body) && asked.services.length === 0

const secretNoun = new RegExp(
  "\\b(?:passwords?|passwd|passphrases?|credentials?|secrets?|api (?:keys?|tokens?)|access tokens?|private keys?|" +
    "connection strings?)\\b"
)
const revealVerb =
  /\b(?:what(?:'s| is| are)|give|share|send|tell|show|paste|print|dump|reveal|list|need the|can i (?:have|get))\b/
const changeOfSecret = /\b(?:rotate|reset|revoke|regenerate)\b/

/** Asking to be handed a credential, as opposed to asking to rotate one or how secrets work. */
const asksForSecret = (asked: Asked): boolean =>
  secretNoun.test(asked.body) && revealVerb.test(asked.body) && !changeOfSecret.test(asked.body)

/** Deleting, dropping or wiping things wholesale. */
const isDestructive = (asked: Asked): boolean =>
  /\b(?:wipe|drop|purge|truncate|nuke)\b/.test(asked.body) ||
  (/\b(?:delete|remove|destroy|erase)\b/.test(asked.body) &&
    /\b(?:all|every|everything|entire|whole)\b/.test(asked.body))

/** Something is broken in production, or a failover is asked for. */
const isIncident = (asked: Asked): boolean =>
  /(?:\b(?:is|are|was|went|gone)|'s)\s+down\b/.test(asked.body) ||
  /\b(?:outage|incident|sev-?[12]|unreachable|failover)\b/.test(asked.body)

const ownershipWords =
  /\b(?:who|own|owns|owned|owner|owners|owning|maintains|maintainer|repo|repository|where|live|lives|located|team)\b/

const asksAboutOwnership = (asked: Asked): boolean => ownershipWords.test(asked.body)

type ConfigAspect = "replicas" | "memory" | "cpu" | "release" | "health"

const aspectPatterns: ReadonlyArray<readonly [ConfigAspect, RegExp]> = [
  ["replicas", /\b(?:replicas?|instances|pods?|autoscaling)\b/],
  ["memory", /\b(?:memory|ram)\b/],
  ["cpu", /\bcpu\b/],
  ["release", /\b(?:release|version|running|runs|deployed)\b/],
  ["health", /\b(?:healthy|health|status)\b/]
]

/** The parts of a service's config a question asks about; a bare "config" asks about all of them. */
const configAspects = (asked: Asked): ReadonlyArray<ConfigAspect> => {
  const named = aspectPatterns.filter(([, pattern]) => pattern.test(asked.body)).map(([aspect]) => aspect)
  return named.length === 0 && /\b(?:config|configuration|limits?)\b/.test(asked.body)
    ? aspectPatterns.map(([aspect]) => aspect)
    : named
}

// ---------------------------------------------------------------------------------------------
// The surfaces

const docsTurn = (asked: Asked): AssistantTurn => {
  if (isSmallTalk(asked)) return smallTalk(asked)
  if (asksForSecret(asked)) return refused(secretsAnswer)
  const topical = isTopical(asked.body)
  if (asked.services.length > 0 && (asksAboutOwnership(asked) || !topical)) return describeServices(asked, [])
  return topical ? answerFromDocs(asked) : refused(outOfScopeAnswer)
}

const agentTurn = (asked: Asked): AssistantTurn => {
  if (isSmallTalk(asked)) return smallTalk(asked)
  if (asksForSecret(asked)) return refused(secretsAnswer)
  if (isRequest(asked)) {
    if (isDestructive(asked)) return refused(bulkDeleteAnswer)
    if (isIncident(asked)) return handOff(asked)
    const kind = changeKind(asked)
    if (kind !== undefined) return proposeChange(asked, kind)
  }
  const topical = isTopical(asked.body)
  const aspects = configAspects(asked)
  if (asked.services.length > 0 && (asksAboutOwnership(asked) || aspects.length > 0 || !topical)) {
    return describeServices(asked, aspects)
  }
  return topical ? answerFromDocs(asked) : refused(outOfScopeAnswer)
}

// ---------------------------------------------------------------------------------------------
// Turns that run nothing

const outOfScopeAnswer =
  "Sorry, I can only help with questions about Harbor: deploying, hosting, billing and access. " +
  "For anything else you'll need a different assistant."

const secretsAnswer = "I can't share passwords, keys or other credentials. Production secrets are only issued " +
  "through Vault: request your service's role there to get short-lived credentials."

const bulkDeleteAnswer = "I won't delete, drop or wipe things in bulk: shared environments hold other teams' " +
  "services and data, and there is no undo. Ask the owning teams about the specific resources you want gone."

const turnOf = (
  answer: string,
  outcome: string,
  toolExecutions: ReadonlyArray<ToolExecution> = [],
  citations: ReadonlyArray<Citation> = [],
  proposal: Proposal | null = null
): AssistantTurn => ({ answer, outcome, citations, toolExecutions, proposal })

const refused = (answer: string): AssistantTurn => turnOf(answer, "refused")

const smallTalk = (asked: Asked): AssistantTurn =>
  turnOf(
    asked.opener === "greeting"
      ? "Hi! Ask me anything about Harbor: deploys, billing, access or runbooks."
      : "Glad it's working! Ask any time you have another Harbor question.",
    "answered"
  )

// ---------------------------------------------------------------------------------------------
// Tools

const succeeded = (tool: string, input: unknown, output: unknown): ToolExecution => ({
  tool,
  input,
  output,
  error: null
})
const failed = (tool: string, input: unknown, error: string): ToolExecution => ({ tool, input, error })

const catalogCall = (name: string): { readonly execution: ToolExecution; readonly entry: Service | undefined } => {
  const entry = findService(name)
  return {
    execution: entry === undefined
      ? failed("catalog", { service: name }, `no catalog entry for ${name}`)
      : succeeded("catalog", { service: name }, entry),
    entry
  }
}

const configCall = (
  service: string,
  environment: Environment
): { readonly execution: ToolExecution; readonly config: ServiceConfig | undefined } => {
  const config = readConfig(service, environment)
  return {
    execution: config === undefined
      ? failed("read_config", { service, environment }, `${service} does not run in ${environment}`)
      : succeeded("read_config", { service, environment }, config),
    config
  }
}

const searchCall = (asked: Asked): { readonly execution: ToolExecution; readonly passages: ReadonlyArray<Passage> } => {
  const query = contentWords(asked.body).join(" ")
  const passages = searchDocs(query)
  const hits = passages.map((p) => ({ path: p.doc.path, title: p.doc.title, snippet: p.sentences.join(" ") }))
  return { execution: succeeded("search_docs", { query }, { hits }), passages }
}

// ---------------------------------------------------------------------------------------------
// Answers from the docs

const link = (passage: Passage): string => `[${passage.doc.title}](${passage.doc.path})`

// The quote is the matching sentence less its final stop, so it is literally in the hit's snippet.
const quoteOf = (passage: Passage): Citation => ({
  path: passage.doc.path,
  quote: passage.best.replace(/[.!?]$/, ""),
  match: "quote"
})

/** Answers from the top page's sentences and cites it; a second page about the same topic is linked too. */
const answerFromDocs = (asked: Asked): AssistantTurn => {
  const { execution, passages } = searchCall(asked)
  const [top, next] = passages
  if (top === undefined) {
    return turnOf("I couldn't find anything in the Harbor docs about that.", "answered", [execution])
  }
  const related = next !== undefined && next.score >= topicWeight ? next : undefined
  const answer = `${top.sentences.join(" ")} Source: ${link(top)}.` +
    (related === undefined ? "" : ` See also ${link(related)}.`)
  const citations: ReadonlyArray<Citation> = related === undefined
    ? [quoteOf(top)]
    : [quoteOf(top), { path: related.doc.path, match: "path" }]
  return turnOf(answer, "answered", [execution], citations)
}

/** Looks up the runbook and hands the conversation to the rotation it names, changing nothing. */
const handOff = (asked: Asked): AssistantTurn => {
  const { execution, passages } = searchCall(asked)
  const runbook = passages[0]
  const rotation = runbook?.doc.oncall ?? "Platform on-call"
  const attached = runbook === undefined ? "" : ` with ${link(runbook)} attached`
  const answer =
    `This needs a person, so I haven't changed anything: I've handed it to the **${rotation}** rotation${attached}. ` +
    "They'll pick it up in the incident channel."
  const citations: ReadonlyArray<Citation> = runbook === undefined ? [] : [{ path: runbook.doc.path, match: "path" }]
  return turnOf(answer, "handed-off", [execution], citations)
}

// ---------------------------------------------------------------------------------------------
// Read-only answers about services

const ownership = (entry: Service): string =>
  `**${entry.service}** is owned by \`${entry.owner}\`; its repo is \`${entry.repo}\`, ` +
  `and it runs in the \`${entry.namespace}\` namespace.`

const aspectSentence: { readonly [A in ConfigAspect]: (c: ServiceConfig) => string } = {
  replicas: (c) =>
    `**${c.service}** is running **${plural(c.replicas, "replica")}** in ${c.environment}, ` +
    `with autoscaling between ${c.autoscaling.min} and ${c.autoscaling.max}.`,
  memory: (c) => `**${c.service}** has a ${c.resources.limits.memory} memory limit in ${c.environment}.`,
  cpu: (c) => `**${c.service}** has a ${c.resources.limits.cpu} CPU limit in ${c.environment}.`,
  release: (c) =>
    `**${c.service}** runs release \`${c.release}\` in ${c.environment}; ` +
    `the previous release was \`${c.previousRelease}\`.`,
  health: (c) =>
    `**${c.service}** is up in ${c.environment}: ${plural(c.replicas, "replica")} on release \`${c.release}\`.`
}

/** What part of an answer says, and the tool executions it rests on. */
interface Said {
  readonly answer: string
  readonly executions: ReadonlyArray<ToolExecution>
}

const joinSaid = (said: ReadonlyArray<Said>): Said => ({
  answer: said.map((s) => s.answer).join(" "),
  executions: said.flatMap((s) => s.executions)
})

/** The catalog entry of each named service and, when config is asked about, its config. */
const describeServices = (asked: Asked, aspects: ReadonlyArray<ConfigAspect>): AssistantTurn => {
  const { answer, executions } = joinSaid(asked.services.map((name) => describeService(asked, name, aspects)))
  return turnOf(answer, "answered", executions)
}

// An unknown name still goes to the catalog, so the answer rests on the catalog saying it has no entry.
const describeService = (asked: Asked, name: string, aspects: ReadonlyArray<ConfigAspect>): Said => {
  const known = findService(name) !== undefined
  const wantsOwner = !known || aspects.length === 0 || asksAboutOwnership(asked)
  return joinSaid([
    ...(wantsOwner ? [describeOwner(name)] : []),
    ...(known && aspects.length > 0 ? [describeConfig(name, asked.environment, aspects)] : [])
  ])
}

const describeOwner = (name: string): Said => {
  const { execution, entry } = catalogCall(name)
  return {
    answer: entry === undefined
      ? `The service catalog has no entry for \`${name}\`; check the name and ask again.`
      : ownership(entry),
    executions: [execution]
  }
}

const describeConfig = (service: string, environment: Environment, aspects: ReadonlyArray<ConfigAspect>): Said => {
  const { execution, config } = configCall(service, environment)
  return {
    answer: config === undefined
      ? `**${service}** does not run in ${environment}.`
      : aspects.map((aspect) => aspectSentence[aspect](config)).join(" "),
    executions: [execution]
  }
}

// ---------------------------------------------------------------------------------------------
// Changes: read what is needed, propose, stop for approval

type ChangeKind = "rollback" | "rotate" | "restart" | "scale" | "limit" | "deploy"

const adjustVerb = /\b(?:set|raise|increase|bump|lower|decrease|reduce|change)\b/

// Order matters: "roll back the deploy" is a rollback, not a deploy.
const changePatterns: ReadonlyArray<readonly [ChangeKind, (body: string) => boolean]> = [
  ["rollback", (b) => /\b(?:rollback|revert)\b/.test(b)],
  ["rotate", (b) => /\b(?:rotate|reset|regenerate)\b/.test(b)],
  ["restart", (b) => /\b(?:restart|bounce|recycle)\b/.test(b)],
  ["scale", (b) => /\bscale\b/.test(b) || (adjustVerb.test(b) && /\breplicas?\b/.test(b))],
  ["limit", (b) => adjustVerb.test(b) && /\b(?:memory|ram|cpu)\b/.test(b)],
  ["deploy", (b) => /\b(?:deploy|redeploy|ship|promote)\b/.test(b)]
]

const changeKind = (asked: Asked): ChangeKind | undefined =>
  changePatterns.find(([, matches]) => matches(asked.body))?.[0]

/** One gated action a proposal holds; it runs only after a person approves. */
interface Action {
  readonly tool: "apply_change" | "deploy"
  readonly input: Record<string, unknown>
}

/** What a change needs: the reads done, then either a proposal to leave or a question back. */
type Plan =
  | {
    readonly reads: ReadonlyArray<ToolExecution>
    readonly summary: string
    readonly action: Action
    readonly context: string
  }
  | { readonly reads: ReadonlyArray<ToolExecution>; readonly reply: string }

type Planner = (asked: Asked, service: Service) => Plan

/** Turns a change request into a pending proposal; it never runs a gated tool itself. */
const proposeChange = (asked: Asked, kind: ChangeKind): AssistantTurn => {
  const [name] = asked.services
  if (name === undefined) {
    return turnOf(
      "Which service should I change? Name it as the service catalog does, for instance `payments-api`.",
      "answered"
    )
  }
  const service = findService(name)
  if (service === undefined) {
    const { answer, executions } = describeOwner(name)
    return turnOf(answer, "answered", executions)
  }
  const plan = planners[kind](asked, service)
  if ("reply" in plan) return turnOf(plan.reply, "answered", plan.reads)
  const id = proposalId(asked.surface, asked.question)
  const actions = [plan.action]
  const propose = succeeded("propose_change", { summary: plan.summary, actions }, {
    proposalId: id,
    status: "pending",
    approvers: [service.owner]
  })
  const answer = `${plan.context} I've proposed to ${lowerFirst(plan.summary)} (proposal \`${id}\`); ` +
    `nothing changes until \`${service.owner}\` approves it.`
  return turnOf(answer, "awaiting-approval", [...plan.reads, propose], [], {
    id,
    summary: plan.summary,
    status: "pending",
    actions
  })
}

/** The text with its first letter lower-cased, to go on after a sentence's start. */
export const lowerFirst = (text: string): string => `${text.charAt(0).toLowerCase()}${text.slice(1)}`

/** Reads the service's config, then plans from it; a service absent from the environment stops there. */
const withConfig = (
  asked: Asked,
  service: Service,
  plan: (config: ServiceConfig, read: ToolExecution) => Plan
): Plan => {
  const read = configCall(service.service, asked.environment)
  return read.config === undefined
    ? { reads: [read.execution], reply: `**${service.service}** does not run in ${asked.environment}.` }
    : plan(read.config, read.execution)
}

const rollbackPlan: Planner = (asked, service) =>
  withConfig(asked, service, (config, read) => ({
    reads: [read],
    summary: `Roll back ${config.service} in ${config.environment} to ${config.previousRelease}`,
    action: {
      tool: "deploy",
      input: { service: config.service, environment: config.environment, release: config.previousRelease }
    },
    context: `${config.service} is on \`${config.release}\` in ${config.environment}; ` +
      `the previous release is \`${config.previousRelease}\`.`
  }))

// A rotation needs the owner from the catalog, not the config: the owning team approves new credentials.
const rotatePlan: Planner = (asked, service) => {
  const secret = `${service.service}/app`
  return {
    reads: [catalogCall(service.service).execution],
    summary: `Rotate the ${secret} credential in ${asked.environment}`,
    action: { tool: "apply_change", input: { kind: "rotate-secret", secret, environment: asked.environment } },
    context: `\`${secret}\` is issued by Vault; after a rotation, ` +
      "the services using it pick up the new credential on their next restart."
  }
}

const restartPlan: Planner = (asked, service) =>
  withConfig(asked, service, (config, read) => ({
    reads: [read],
    summary: `Restart ${config.service} in ${config.environment}`,
    action: {
      tool: "apply_change",
      input: { kind: "restart", service: config.service, environment: config.environment }
    },
    context: config.replicas === 1
      ? `${config.service} runs a single replica in ${config.environment}, so it is briefly down while it restarts.`
      : `${config.service} runs ${config.replicas} replicas in ${config.environment}; they restart one at a time.`
  }))

const targetReplicas = (body: string): number | undefined => {
  const match = /\b(\d{1,4})\s*(?:replicas?|instances|pods?)\b/.exec(body) ?? /\bto\s+(\d{1,4})\b/.exec(body)
  return match?.[1] === undefined ? undefined : Number(match[1])
}

const nothingToChange = "That is already the target, so there is nothing to change."

const scalePlan: Planner = (asked, service) =>
  withConfig(asked, service, (config, read) => {
    const target = targetReplicas(asked.body)
    const now = `${config.service} runs ${plural(config.replicas, "replica")} in ${config.environment}.`
    if (target === undefined) return { reads: [read], reply: `${now} How many replicas should it run?` }
    if (target === config.replicas) return { reads: [read], reply: `${now} ${nothingToChange}` }
    // Scaling past the autoscaling maximum would be undone by the autoscaler, so the maximum moves with it.
    const set = target > config.autoscaling.max ? { replicas: target, "autoscaling.max": target } : { replicas: target }
    return {
      reads: [read],
      summary: `Scale ${config.service} in ${config.environment} from ${config.replicas} to ${
        plural(target, "replica")
      }`,
      action: { tool: "apply_change", input: { service: config.service, environment: config.environment, set } },
      context: now
    }
  })

const quantity = (body: string, resource: "memory" | "cpu"): string | undefined => {
  if (resource === "memory") {
    const match = /\b(\d+(?:\.\d+)?)\s?(gi|gb|g|mi|mb|m)\b/.exec(body)
    return match?.[2] === undefined ? undefined : `${match[1]}${match[2].startsWith("g") ? "Gi" : "Mi"}`
  }
  const match = /\b(\d+(?:\.\d+)?)\s?(m|cores?|cpus?)\b/.exec(body)
  return match?.[2] === undefined ? undefined : match[2] === "m" ? `${match[1]}m` : `${match[1]}`
}

const limitPlan: Planner = (asked, service) =>
  withConfig(asked, service, (config, read) => {
    const resource = /\bcpu\b/.test(asked.body) && !/\b(?:memory|ram)\b/.test(asked.body) ? "cpu" : "memory"
    const current = config.resources.limits[resource]
    const target = quantity(asked.body, resource)
    const label = resource === "cpu" ? "CPU" : "memory"
    const now = `${config.service} in ${config.environment} currently has a ${current} ${label} limit.`
    if (target === undefined) return { reads: [read], reply: `${now} What should the new limit be?` }
    if (target === current) return { reads: [read], reply: `${now} ${nothingToChange}` }
    return {
      reads: [read],
      summary: `Set the ${label} limit of ${config.service} in ${config.environment} from ${current} to ${target}`,
      action: {
        tool: "apply_change",
        input: {
          service: config.service,
          environment: config.environment,
          set: { [`resources.limits.${resource}`]: target }
        }
      },
      context: now
    }
  })

const releaseTag = /\br\d{4}\.\d{2}\.\d{2}\.\d+\b/

// Without a named release, deploying to production means promoting what staging runs.
const deployPlan: Planner = (asked, service) =>
  withConfig(asked, service, (config, read) => {
    const named = releaseTag.exec(asked.body)?.[0]
    const staging = named === undefined && config.environment === "production"
      ? configCall(service.service, "staging")
      : undefined
    const release = named ?? staging?.config?.release
    const reads = staging === undefined ? [read] : [read, staging.execution]
    const now = `${config.service} runs \`${config.release}\` in ${config.environment}.`
    if (release === undefined) return { reads, reply: `${now} Which release should I deploy?` }
    if (release === config.release) return { reads, reply: `${now} ${nothingToChange}` }
    return {
      reads,
      summary: `Deploy ${release} of ${config.service} to ${config.environment}`,
      action: { tool: "deploy", input: { service: config.service, environment: config.environment, release } },
      context: now
    }
  })

const planners: { readonly [K in ChangeKind]: Planner } = {
  rollback: rollbackPlan,
  rotate: rotatePlan,
  restart: restartPlan,
  scale: scalePlan,
  limit: limitPlan,
  deploy: deployPlan
}

/** A proposal id derived from the surface and question alone: the same request always gets the same id. */
const proposalId = (surface: string, question: string): string =>
  `prop_${fnv1a(`${surface}\n${question}`).toString(16).padStart(8, "0")}`
