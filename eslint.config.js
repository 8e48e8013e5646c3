import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";
import { layerConfigs } from "./eslint/layers.ts";
import { readFormRequired } from "./eslint/read-form.ts";
import { whereRequired } from "./eslint/where-required.ts";

export default tseslint.config(
  { ignores: ["build/", "data/", ".react-router/", "node_modules/", "bench/results/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "no-restricted-syntax": ["error", ...whereRequired],
    },
  },
  {
    files: ["app/routes/**"],
    rules: { "no-restricted-syntax": ["error", ...whereRequired, ...readFormRequired] },
  },
  ...layerConfigs,
);
