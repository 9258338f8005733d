// The linter and the formatter: ESLint's and typescript-eslint's recommended rules, and Effect's dprint
// rule as the one formatter for every TypeScript and JavaScript file, with the settings Effect's own
// packages use. `npm run lint` checks both; `npm run format` rewrites the tree to the formatter's layout.
import * as effectEslint from "@effect/eslint-plugin"
import eslint from "@eslint/js"
import tseslint from "typescript-eslint"

/** A protocol's own modules (`src/Protocols/NAME/…`), which only its folder and the registry reach. */
const protocolFolders = {
  group: ["**/Protocols/*/*"],
  message: "a protocol's client and wire are reached through src/Protocols/Registry.ts, not imported"
}

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "reports/**", "coverage/**", ".scratch/**", ".stryker-tmp/**"] },
  { linterOptions: { reportUnusedDisableDirectives: "error" } },
  eslint.configs.recommended,
  tseslint.configs.recommended,
  ...effectEslint.configs.dprint,
  {
    rules: {
      // The product's job includes finding and escaping control characters: its patterns name them.
      "no-control-regex": "off",
      // A variable a signal handler reads before the bin assigns it stays a `let`.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // The formatter lays code out at 120 columns; this bounds the strings and comments it cannot break.
      "max-len": ["error", { code: 140, ignoreUrls: true, ignoreRegExpLiterals: true }],
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }]
    }
  },
  {
    files: ["**/*.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly" } }
  },
  {
    // Preloaded into child processes with `node --require`, so CommonJS.
    files: ["**/*.cjs"],
    languageOptions: {
      sourceType: "commonjs",
      globals: {
        require: "readonly",
        module: "writable",
        global: "readonly",
        process: "readonly",
        setInterval: "readonly"
      }
    },
    rules: { "@typescript-eslint/no-require-imports": "off" }
  },
  {
    // A protocol is reached through its definition in src/Protocols/Registry.ts: nothing outside its
    // folder imports its client or its wire, so that adding one is its folder and a registry line.
    files: ["src/**/*.ts"],
    ignores: ["src/Protocols/**"],
    rules: { "no-restricted-imports": ["error", { patterns: [protocolFolders] }] }
  },
  {
    // The application runs what a command hands it (a plan, the words to use); it never reaches back up
    // into the commands, whose flags and handlers are the CLI's.
    files: ["src/Application/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [{
          group: ["**/Commands/*", "**/Commands"],
          message: "the application imports nothing of Commands: a command hands it a plan"
        }, protocolFolders]
      }]
    }
  },
  {
    // The pure core — cases, traces and results, graders, evidence rules, the scorecard — runs nothing:
    // it may not reach into the runner, the application or the commands, whose effects it would drag in.
    files: ["src/Schema/**/*.ts", "src/Graders/**/*.ts", "src/Evidence/**/*.ts", "src/Scorecard/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [{
          group: ["**/Runner/*", "**/Application/*", "**/Commands/*", "**/Runner", "**/Application", "**/Commands"],
          message: "the pure core imports nothing of Runner, Application or Commands"
        }, protocolFolders]
      }]
    }
  },
  {
    // The HTML page's own script and style, held as text: their lines are the page's, not ours to break.
    files: ["src/Scorecard/Render/Html/Script.ts", "src/Scorecard/Render/Html/Style.ts"],
    rules: { "max-len": "off" }
  }
)
