import { RuleTester } from "eslint";
import { builtinRules } from "eslint/use-at-your-own-risk";
import { describe, it } from "vitest";
import { whereRequired } from "./where-required.ts";

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const rule = builtinRules.get("no-restricted-syntax")!;
const tester = new RuleTester({ languageOptions: { ecmaVersion: 2024, sourceType: "module" } });
const options = whereRequired;
const update = "updateTable(...).set(...) needs a .where(...) before it is executed.";
const remove = "deleteFrom(...) needs a .where(...) before it is executed.";

tester.run("UPDATE and DELETE need a WHERE", rule, {
  valid: [
    `await db.updateTable("companies").set({ review_count: 1 }).where("id", "=", id).execute();`,
    `await db.updateTable("companies").set({ review_count: 1 }).where("id", "=", id).executeTakeFirst();`,
    `await db.updateTable("companies").set(row).where("id", "=", id).returning("id").executeTakeFirstOrThrow();`,
    `await db.deleteFrom("sessions").where("userId", "=", userId).execute();`,
    `await db.deleteFrom("sessions").where("userId", "=", userId).executeTakeFirst();`,
    `await db.insertInto("companies").values(row).executeTakeFirstOrThrow();`,
  ].map((code) => ({ code: `async function f(db, id, userId, row) { ${code} }`, options })),
  invalid: [
    [`await db.updateTable("companies").set({ review_count: 1 }).execute();`, update],
    [`await db.updateTable("companies").set({ review_count: 1 }).executeTakeFirst();`, update],
    [`await db.updateTable("companies").set({ review_count: 1 }).executeTakeFirstOrThrow();`, update],
    [`await db.updateTable("companies").set(row).returning("id").executeTakeFirst();`, update],
    [`await db.deleteFrom("sessions").execute();`, remove],
    [`await db.deleteFrom("sessions").executeTakeFirst();`, remove],
    [`await db.deleteFrom("sessions").executeTakeFirstOrThrow();`, remove],
    [`await db.deleteFrom("sessions").returningAll().execute();`, remove],
  ].map(([code, message]) => ({
    code: `async function f(db, id, userId, row) { ${code} }`,
    options,
    errors: [{ message }],
  })),
});
