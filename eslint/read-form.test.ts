import { RuleTester } from "eslint";
import { builtinRules } from "eslint/use-at-your-own-risk";
import { describe, it } from "vitest";
import { readFormRequired } from "./read-form.ts";

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const rule = builtinRules.get("no-restricted-syntax")!;
const tester = new RuleTester({ languageOptions: { ecmaVersion: 2024, sourceType: "module" } });
const options = readFormRequired;
const message = "Read a page action's form with readForm(request) from app/http/forms.server.ts.";

tester.run("page actions read their form with readForm", rule, {
  valid: [`const form = await readForm(request);`, `const data = new FormData(); data.append("a", "b");`].map(
    (code) => ({ code: `async function f(request, readForm) { ${code} }`, options }),
  ),
  invalid: [
    `const form = await request.formData();`,
    `return (await req.formData()).get("a");`,
    `const form = await args.request.formData();`,
    `const { request: incoming } = args; const form = await incoming.formData();`,
  ].map((code) => ({
    code: `async function f(request, req, args) { ${code} }`,
    options,
    errors: [{ message }],
  })),
});
