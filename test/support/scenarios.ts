/**
 * The scripted behaviour every live protocol's test app serves, one turn per question, so the same
 * golden set (test/fixtures/protocols) gives the same verdicts and facts whichever wire carries it.
 * Each app drives its library's own mock or fake model through its real tool loop: the model calls the
 * scenario's tools in order, one per step, the tools run (or throw, or wait for approval), then the
 * model answers. Surface `support`, tools `search_kb`, `lookup_order` and `issue_refund` (gated).
 */

/** One tool call of a scenario, in the order the model makes them. */
export interface ScenarioCall {
  readonly tool: "search_kb" | "lookup_order" | "issue_refund"
  readonly input: Readonly<Record<string, string>>
  /** What the tool returns when it runs. */
  readonly output?: unknown
  /** The tool throws an error with this message. */
  readonly error?: string
  /** The tool needs a person's approval: the turn stops here, waiting for it. */
  readonly needsApproval?: true
}

/** One scripted turn. */
export interface Scenario {
  readonly question: string
  readonly calls: ReadonlyArray<ScenarioCall>
  /** The final answer (none when the turn stops for approval or fails). */
  readonly answer?: string
  /** The model fails after its calls: the turn ends in an error. */
  readonly fails?: string
  /** The answer once a person approved the call that waited (and the tool ran). */
  readonly approved?: string
  /** The answer once a person denied it (and the tool did not run). */
  readonly denied?: string
}

/** A retriever's documents, as LangChain and most retrieval tools return them. */
const documents = (...sources: ReadonlyArray<string>) =>
  sources.map((source) => ({ pageContent: `The page at ${source}.`, metadata: { source } }))

/** The scenarios, by question. */
export const scenarios: ReadonlyArray<Scenario> = [
  {
    question: "How long do customers have to ask for a refund?",
    calls: [{ tool: "search_kb", input: { query: "refund window" }, output: documents("/kb/refunds", "/kb/billing") }],
    answer: "Customers have 30 days to ask for a refund; see [Refunds](/kb/refunds)."
  },
  {
    question: "Where is order 42?",
    calls: [{ tool: "lookup_order", input: { orderId: "42" }, error: "order service unavailable" }],
    answer: "I could not look up order 42 right now; please try again later."
  },
  {
    question: "Please refund order 42.",
    calls: [
      { tool: "lookup_order", input: { orderId: "42" }, output: { orderId: "42", status: "delivered", total: 120 } },
      { tool: "issue_refund", input: { orderId: "42" }, output: { refunded: true }, needsApproval: true }
    ],
    approved: "Order 42 is refunded.",
    denied: "I did not refund order 42."
  },
  {
    question: "How long does shipping take?",
    calls: [{ tool: "search_kb", input: { query: "shipping times" }, output: documents("/kb/shipping-times") }],
    answer: "Orders ship within 2 days, as [Shipping](/kb/shipping-times) and [Delivery](/kb/delivery) say."
  },
  {
    question: "Hello!",
    calls: [],
    answer: "Hello! How can I help with your order?"
  },
  {
    question: "Summarise my last invoice.",
    calls: [{ tool: "search_kb", input: { query: "invoice" }, output: documents("/kb/invoices") }],
    fails: "the model provider is overloaded"
  }
]

/** The answer a scenario gives once its calls are made: after a decision on the call that waited, the decision's. */
export const answerOf = (scenario: Scenario, decided?: "approved" | "denied"): string =>
  (decided === undefined ? undefined : scenario[decided]) ?? scenario.answer ?? ""

/** The scenario for a question. */
export const scenarioFor = (question: string): Scenario | undefined => scenarios.find((s) => s.question === question)
