import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

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
      "no-restricted-syntax": [
        "error",
        {
          // Like create-t3-app's Drizzle rule: an UPDATE or DELETE without WHERE is almost always a bug.
          selector:
            "CallExpression[callee.property.name='execute'] > MemberExpression > CallExpression[callee.property.name=/^(set)$/]",
          message: "updateTable(...).set(...) needs a .where(...) before execute().",
        },
        {
          selector:
            "CallExpression[callee.property.name='execute'] > MemberExpression > CallExpression[callee.property.name='deleteFrom']",
          message: "deleteFrom(...) needs a .where(...) before execute().",
        },
      ],
    },
  },
);
