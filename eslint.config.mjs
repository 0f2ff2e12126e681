// ESLint (flat config) for the JavaScript the site ships: the page (web/app), its workers (web/worker) and
// the service-worker template (web/sw.js). Run by ./scripts/test as `eslint web`; pinned in package.json.
// What the build copies from node_modules (vendor/) and what it generates (app/contract.js) are not in web/.
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // `catch (err) {}` and `(_event) => ...` name what is ignored on purpose; an unused import or
      // variable is still an error.
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none" }],
    },
  },
  {
    files: ["web/app/**/*.js"],
    languageOptions: { sourceType: "module", globals: globals.browser },
  },
  {
    files: ["web/worker/*.js"],
    languageOptions: { sourceType: "module", globals: globals.worker },
  },
  {
    // A classic script (registered with {type: "classic"}); `openmasq build` replaces the three
    // placeholders with JSON (py/openmasq/site/build.py, render_service_worker).
    files: ["web/sw.js"],
    languageOptions: {
      sourceType: "script",
      globals: { ...globals.serviceworker, __BUILD_HASH__: "readonly", __MANIFEST__: "readonly", __POLICIES__: "readonly" },
    },
  },
];
