import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { accountMessages } from "#app/domain/accounts.server.ts";
import { contributionMessages as m } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { companyDraft, companyEntries, companyReviewEntries, postEntries } from "./support/contribute.ts";
import { alertText, newClientIp, newEmail, Visitor } from "./support/http.ts";
import { startServer } from "../support/server.ts";

// PostgreSQL refuses NUL in text: a form or page that handed one to it answered 500. Every text a form or a page
// takes from a visitor is tried with one here, on PostgreSQL, and so are the lookalike company names.
const server = await startServer("postgres", { env: { DEMO_DATA: "never", TRUSTED_PROXIES: "127.0.0.1" } });
const password = "a long and private passphrase";
const reviewText = "Clear goals, fair reviews and a team that helps each other out.";

after(async () => {
  assert.equal(await server.stop(), 0, `the server did not shut down cleanly on SIGTERM:\n${server.output()}`);
  assert.doesNotMatch(server.output(), /"level":(50|60)/, "the server logged errors");
});

function visitor(): Visitor {
  return new Visitor(server.baseURL, newClientIp());
}

async function member(): Promise<Visitor> {
  const person = visitor();
  await person.signUp(newEmail("input"), password);
  return person;
}

const cursorWithNul = Buffer.from(JSON.stringify(["acme\u0000", 1])).toString("base64url");

describe("a NUL byte in any form or page on PostgreSQL", () => {
  it("is answered as bad input, never a 500", async () => {
    const signedIn = await member();
    const company = companyDraft("Nul");
    const forms: Array<{ path: string; fields: Array<[string, string]>; status: number; message?: string }> = [
      {
        path: paths.signIn(),
        fields: [
          ["email", "ada\u0000@example.com"],
          ["password", password],
        ],
        status: 400,
      },
      {
        path: paths.signUp(),
        fields: [
          ["email", "ada\u0000@example.com"],
          ["password", password],
        ],
        status: 400,
      },
      { path: paths.forgotPassword(), fields: [["email", "ada\u0000@example.com"]], status: 400 },
      {
        path: paths.resetPassword(),
        fields: [
          ["token", "abcdefghijklmnopqrstuvwx\u0000"],
          ["password", "another long passphrase"],
        ],
        status: 400,
        message: accountMessages.resetInvalid,
      },
      {
        path: paths.addCompany(),
        fields: [
          ...companyEntries({ ...company, name: `${company.name}\u0000` }),
          ...companyReviewEntries({ tags: ["Stable"], text: reviewText }),
        ],
        status: 400,
      },
    ];
    for (const form of forms) {
      const person = form.path === paths.addCompany() ? signedIn : visitor();
      const response = await postEntries(person, form.path, form.fields);
      const html = await response.text();
      assert.equal(response.status, form.status, `${form.path}: ${response.status}`);
      if (form.message) assert.equal(alertText(html), form.message, form.path);
    }
    const pages: Array<[string, number]> = [
      [`${paths.resetPassword()}?token=${encodeURIComponent("abc\u0000")}`, 200],
      [`${paths.verifyEmail()}?token=${encodeURIComponent("abc\u0000")}`, 400],
      [paths.search({ country: "US", q: "acme\u0000" }), 200],
      [paths.search({ country: "US", q: "acme", after: cursorWithNul }), 200],
      [paths.search({ kind: "manager", country: "US", q: "ro\u0000bin" }), 200],
    ];
    for (const [path, status] of pages) {
      const response = await visitor().get(path);
      await response.body?.cancel();
      assert.equal(response.status, status, path);
    }
  });
});

describe("lookalike company names on PostgreSQL", () => {
  it("refuses a zero-width space, a Cyrillic е and a right-to-left override as the same company", async () => {
    const person = await member();
    const draft = companyDraft("Lookalike");
    const review = companyReviewEntries({ tags: ["Stable"], text: reviewText });
    const first = await postEntries(person, paths.addCompany(), [...companyEntries(draft), ...review]);
    await first.body?.cancel();
    assert.equal(first.status, 302);

    const [head, tail] = [draft.name.slice(0, 3), draft.name.slice(3)];
    for (const name of [`${head}\u200B${tail}`, draft.name.replace("o", "\u043E"), `\u202E${draft.name}`]) {
      const refused = await postEntries(person, paths.addCompany(), [...companyEntries({ ...draft, name }), ...review]);
      const html = await refused.text();
      assert.equal(refused.status, 409, JSON.stringify(name));
      assert.equal(alertText(html), m.companyExists, JSON.stringify(name));
    }

    // Elsewhere the override makes a company of its own, shown without the override.
    const elsewhere = await postEntries(person, paths.addCompany(), [
      ...companyEntries({ ...draft, name: `\u202E${draft.name}`, website: `other-${draft.website}` }),
      ...review,
    ]);
    await elsewhere.body?.cancel();
    assert.equal(elsewhere.status, 302);
    const page = await person.get(elsewhere.headers.get("location") ?? "");
    const html = await page.text();
    assert.equal(page.status, 200);
    assert.ok(html.includes(draft.name), "the company page does not show the name");
    assert.ok(!/[\u202A-\u202E\u2066-\u2069\u200B]/.test(html), "the page shows an invisible control character");
  });
});
