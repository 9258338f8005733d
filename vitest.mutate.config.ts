import { defineConfig } from "vitest/config"
import base from "./vitest.config.js"

// The unit tests Stryker runs against each mutant: the suite's own config without the global setup,
// which builds dist/ for the end-to-end tests (none of the mutation groups runs those).
export default defineConfig({ ...base, test: { ...base.test, globalSetup: [] } })
