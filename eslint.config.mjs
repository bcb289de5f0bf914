// ESLint for the browser client (client-web/js): plain ES modules run by the browser as they
// are, no build step. `make lint` runs it (`npx --no-install eslint client-web/js`), installed
// by `scripts/bootstrap test` (`npm ci`: exactly the versions package-lock.json pins).
import js from "@eslint/js";
import globals from "globals";

export default [
  {
    // Third-party code, vendored unmodified (client-web/README.md, "Vendored library").
    ignores: ["client-web/vendor/**"],
  },
  {
    files: ["client-web/js/**/*.js"],
    ...js.configs.recommended,
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: globals.browser,
    },
    linterOptions: {
      reportUnusedDisableDirectives: "error",
    },
  },
];
