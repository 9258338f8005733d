import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

// The package's own name resolves to its sources, as tsconfig.json's `paths` does for the type-checker,
// so examples import "turn-eval" as a user would without a build first.
const source = (file: string) => fileURLToPath(new URL(file, import.meta.url))

export default defineConfig({
  resolve: {
    alias: [
      { find: /^turn-eval$/, replacement: source("./src/index.ts") },
      { find: /^turn-eval\/vitest$/, replacement: source("./src/Vitest.ts") }
    ]
  },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/globalSetup.ts"],
    testTimeout: 30_000
  }
})
