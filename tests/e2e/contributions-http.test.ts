import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { after, describe, it } from "node:test";
import { openDatabase } from "#app/db/connection.server.ts";
import { feedbackMessages } from "#app/domain/feedback.server.ts";
import { correctFields } from "#app/http/contribution-forms.server.ts";
import { guidelineMessages } from "#app/lib/guidelines.ts";
import { contributionMessages as m, messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { companyTags, managerTags } from "#app/lib/tags.ts";
import {
  companyDraft,
  companyEntries,
  companyReviewEntries,
  managerDraft,
  managerEntries,
  managerReviewEntries,
  postEntries,
  type ReviewDraft,
} from "./support/contribute.ts";
import { readDemoFacts } from "./support/demo-facts.ts";
import { companyJson, companyReviewJson } from "#tests/support/payloads.ts";
import { alertText, newClientIp, newEmail, sameOrigin, Visitor } from "./support/http.ts";
import { readOutbox, waitForMail } from "../support/outbox.ts";
import { startServer } from "../support/server.ts";

// The rules of adding companies, managers and reviews, and of the contact form, over plain HTTP: what a browser
// without JavaScript sends, or a script that skips the page. Every rule the page checks, the server checks again.
const contactEmail = "owner@candor.example";
const server = await startServer("sqlite", {
  env: { DEMO_DATA: "always", TRUSTED_PROXIES: "127.0.0.1", CONTACT_EMAIL: contactEmail },
});
const facts = await readDemoFacts(server.databaseUrl);
const store = openDatabase(server.databaseUrl, { poolSize: 1 });
const password = "a long and private passphrase";
const goodText = "Clear goals, fair reviews and a team that helps each other out.";

after(async () => {
  await store.close();
  assert.equal(await server.stop(), 0, `the server did not shut down cleanly on SIGTERM:\n${server.output()}`);
  assert.doesNotMatch(server.output(), /"level":(50|60)/, "the server logged errors");
});

/** A visitor signed in to a new account, from an address of their own. */
async function member(): Promise<Visitor> {
  const visitor = new Visitor(server.baseURL, newClientIp());
  await visitor.signUp(newEmail("contributor"), password);
  return visitor;
}

/** The status, the message box and the whole page of a refused form. */
async function answer(response: Response): Promise<{ status: number; message: string | null; html: string }> {
  const html = await response.text();
  return { status: response.status, message: alertText(html), html };
}

/** The error shown under the field with this id, or null. */
function fieldError(html: string, id: string): string | null {
  return new RegExp(`id="${id}-error"[^>]*>([^<]*)<`).exec(html)?.[1] ?? null;
}

/**
 * Whether a single refused field is marked the way the page says it once: no message of its own, its control (or its
 * group) described by the message box, which is on the page.
 */
function markedForMessageBox(html: string, name: string): boolean {
  const group = new RegExp(`<fieldset[^>]*id="${name}-field"[^>]*>`).exec(html)?.[0];
  const control = new RegExp(`<(?:input|select|textarea)[^>]*name="${name}"[^>]*>`).exec(html)?.[0];
  const marked = group ?? control ?? "";
  return (
    fieldError(html, name) === null &&
    /id="form-message"/.test(html) &&
    /aria-describedby="[^"]*\bform-message\b/.test(marked) &&
    (group !== undefined || /aria-invalid="true"/.test(marked))
  );
}

async function companyReviewCount(id: number): Promise<number> {
  const row = await store.db
    .selectFrom("companies")
    .select("review_count")
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  return row.review_count;
}

async function managerReviewCount(id: number): Promise<number> {
  const row = await store.db
    .selectFrom("managers")
    .select("review_count")
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  return row.review_count;
}

async function companiesNamed(name: string): Promise<number> {
  const rows = await store.db.selectFrom("companies").select("id").where("name", "=", name).execute();
  return rows.length;
}

function review(overrides: Partial<ReviewDraft> = {}): ReviewDraft {
  return { tags: ["Stable"], text: goodText, ...overrides };
}

/** Entries without the named field(s). */
function without(entries: Array<[string, string]>, ...names: string[]): Array<[string, string]> {
  return entries.filter(([name]) => !names.includes(name));
}

describe("who may contribute", () => {
  it("sends signed-out visitors from the add and review pages to sign in, and back afterwards", async () => {
    const visitor = new Visitor(server.baseURL, newClientIp());
    for (const target of [
      paths.addCompany(),
      paths.addManagerAlone(),
      paths.reviewCompany(facts.busyCompany.id),
      paths.addManager(facts.busyCompany.id),
    ]) {
      const response = await visitor.get(target);
      await response.body?.cancel();
      assert.equal(response.status, 302, target);
      assert.equal(response.headers.get("location"), paths.signIn(target), target);
    }
    assert.equal(paths.signIn(paths.addCompany()), "/signin?redirectTo=%2Fcompany%2Fadd");
  });

  it("refuses a signed-out manager review with 'You must be logged in to submit a review.'", async () => {
    const visitor = new Visitor(server.baseURL, newClientIp());
    const before = await managerReviewCount(facts.managerWithoutReviews.id);
    const refused = await answer(
      await postEntries(
        visitor,
        paths.reviewManager(facts.managerWithoutReviews.id),
        managerReviewEntries(review({ tags: ["Fair"] })),
      ),
    );
    assert.equal(refused.status, 401);
    assert.equal(refused.message, m.mustSignIn);
    assert.equal(await managerReviewCount(facts.managerWithoutReviews.id), before);
  });

  it("refuses a contribution posted from another site (CSRF) and writes nothing", async () => {
    const visitor = await member();
    const draft = companyDraft("Cross Site");
    const foreign: Array<Record<string, string>> = [
      { "Sec-Fetch-Site": "cross-site" },
      { Origin: "https://evil.example" },
    ];
    for (const headers of foreign) {
      const response = await postEntries(
        visitor,
        paths.addCompany(),
        [...companyEntries(draft), ...companyReviewEntries(review())],
        headers,
      );
      await response.body?.cancel();
      assert.equal(response.status, 403);
    }
    assert.equal(await companiesNamed(draft.name), 0);
  });
});

describe("adding a company over HTTP", () => {
  it("adds the company with its first review, normalising its addresses", async () => {
    const visitor = await member();
    const draft = {
      ...companyDraft("Normal Form"),
      website: "www.normal-form.example",
      glassdoor_url: "http://reviews.example/normal",
    };
    const response = await postEntries(visitor, paths.addCompany(), [
      ...companyEntries(draft),
      ...companyReviewEntries(review({ layoffs: "2024-02-29" })),
    ]);
    await response.body?.cancel();
    assert.equal(response.status, 302);
    const id = Number(response.headers.get("location")?.match(/^\/company\/(\d+)$/)?.[1]);
    const company = await store.db.selectFrom("companies").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    assert.equal(company.website, "https://www.normal-form.example/");
    assert.equal(company.glassdoor_url, "http://reviews.example/normal");
    assert.equal(company.review_count, 1);
    assert.equal(company.recent_layoffs, "2024-02-29");
  });

  it("refuses unpaired surrogates in a JSON body as bad input, naming the field, and adds nothing", async () => {
    // Every field at its longest in "\ud800", which JSON escapes in six bytes: the sealed queue row could not hold
    // it, and the submission answered 500. An unpaired surrogate is no character; the body is bad input.
    const visitor = await member();
    const stored = async () =>
      Promise.all(
        (["companies", "company_reviews", "pending_reviews"] as const).map(
          async (table) =>
            (
              await store.db
                .selectFrom(table)
                .select((eb) => eb.fn.countAll<number>().as("n"))
                .executeTakeFirstOrThrow()
            ).n,
        ),
      );
    const before = await stored();
    const lone = (length: number) => "\ud800".repeat(length);
    const draft = companyDraft("Unpaired");
    const body = {
      company: companyJson({
        name: lone(200),
        state: lone(100),
        city: lone(100),
        website: `${draft.website}/${lone(400)}`,
        glassdoor_url: `reviews.example.com/${lone(400)}`,
      }),
      review: companyReviewJson({ review_text: lone(5000), tags: ["Toxic"] }),
    };
    const response = await visitor.request("/api/v1/companies", {
      method: "POST",
      headers: { ...sameOrigin(server.baseURL), "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    assert.equal(response.status, 400);
    const problem = (await response.json()) as { errors: Array<{ field: string; message: string }> };
    assert.match(problem.errors[0]!.field, /^(company|review)\./);
    assert.equal(problem.errors[0]!.message, "must be well-formed Unicode text (no unpaired surrogates)");
    assert.deepEqual(await stored(), before);
  });

  it("requires every company field, each refusal named on its field, and keeps what was typed", async () => {
    const visitor = await member();
    const draft = companyDraft("Half Done");
    const refused = await answer(
      await postEntries(visitor, paths.addCompany(), [
        ...without(companyEntries(draft), "city", "industry", "country"),
        ["country", "XX"],
        ...companyReviewEntries(review()),
      ]),
    );
    assert.equal(refused.status, 400);
    assert.equal(refused.message, correctFields);
    assert.equal(fieldError(refused.html, "city"), m.required);
    assert.equal(fieldError(refused.html, "industry"), m.industry);
    assert.match(refused.html, new RegExp(`value="${draft.name}"`), "the name typed is not kept");
    assert.match(refused.html, new RegExp(m.country.replace(/\./g, "\\.")));
    assert.equal(await companiesNamed(draft.name), 0);
  });

  it("accepts only http and https web addresses", async () => {
    const visitor = await member();
    for (const website of [
      "javascript:alert(1)",
      "data:text/html,hi",
      "ftp://files.example.com",
      "https://user:pw@x.example",
      "not a site",
    ]) {
      const draft = { ...companyDraft("Bad Address"), website };
      const refused = await answer(
        await postEntries(visitor, paths.addCompany(), [...companyEntries(draft), ...companyReviewEntries(review())]),
      );
      assert.equal(refused.status, 400, website);
      assert.equal(refused.message, m.website, website);
      assert.ok(markedForMessageBox(refused.html, "website"), website);
      assert.equal(await companiesNamed(draft.name), 0, website);
    }
  });

  it("answers 'This company already exists.' (409) for the same name and website, however written", async () => {
    const visitor = await member();
    const draft = companyDraft("Twice Listed");
    const first = await postEntries(visitor, paths.addCompany(), [
      ...companyEntries(draft),
      ...companyReviewEntries(review()),
    ]);
    await first.body?.cancel();
    assert.equal(first.status, 302);
    const again = { ...draft, name: draft.name.toUpperCase(), website: `https://www.${draft.website}/` };
    const refused = await answer(
      await postEntries(visitor, paths.addCompany(), [...companyEntries(again), ...companyReviewEntries(review())]),
    );
    assert.equal(refused.status, 409);
    assert.equal(refused.message, m.companyExists);
    assert.equal(await companiesNamed(draft.name), 1);
    // Another website under the same name is another company.
    const elsewhere = await postEntries(visitor, paths.addCompany(), [
      ...companyEntries({ ...draft, website: `other-${draft.website}` }),
      ...companyReviewEntries(review()),
    ]);
    await elsewhere.body?.cancel();
    assert.equal(elsewhere.status, 302);
  });
});

describe("reviewing a company over HTTP", () => {
  const target = () => paths.reviewCompany(facts.quietCompany.id);

  it("enforces the completeness rule with the same messages as the page, and writes nothing refused", async () => {
    const visitor = await member();
    const before = await companyReviewCount(facts.quietCompany.id);
    const cases: Array<[string, Array<[string, string]>, string, string]> = [
      ["no tag", companyReviewEntries(review({ tags: [] })), m.chooseTags, "tags"],
      ["six tags", companyReviewEntries(review({ tags: companyTags.slice(0, 6) })), m.chooseTags, "tags"],
      ["a tag twice", companyReviewEntries(review({ tags: ["Stable", "Stable"] })), m.chooseTags, "tags"],
      ["a tag not on the list", companyReviewEntries(review({ tags: ["Amazing"] })), m.unknownTag, "tags"],
      ["text of 5 characters", companyReviewEntries(review({ text: "Short" })), m.textTooShort, "review_text"],
      [
        "5 characters between spaces",
        companyReviewEntries(review({ text: "   Short   " })),
        m.textTooShort,
        "review_text",
      ],
      [
        "text over 5000 characters",
        companyReviewEntries(review({ text: "a".repeat(5001) })),
        m.textTooLong,
        "review_text",
      ],
      ["a criterion unrated", without(companyReviewEntries(review()), "culture"), m.rateEvery, "culture"],
      [
        "a rating of 6",
        [...without(companyReviewEntries(review()), "culture"), ["culture", "6"]],
        m.rateEvery,
        "culture",
      ],
      ["a question unanswered", without(companyReviewEntries(review()), "recommend"), m.answer, "recommend"],
      [
        "a layoffs date in the future",
        companyReviewEntries(review({ layoffs: "2999-01-01" })),
        m.layoffsDate,
        "recent_layoffs",
      ],
      [
        "a layoffs day that does not exist",
        companyReviewEntries(review({ layoffs: "2023-02-30" })),
        m.layoffsDate,
        "recent_layoffs",
      ],
    ];
    for (const [what, entries, message, field] of cases) {
      const refused = await answer(await postEntries(visitor, target(), entries));
      assert.equal(refused.status, 400, what);
      assert.equal(refused.message, message, what);
      assert.ok(markedForMessageBox(refused.html, field), what);
    }
    assert.equal(await companyReviewCount(facts.quietCompany.id), before);
  });

  it("refuses links, e-mail addresses and phone numbers in the review text, naming the rule broken", async () => {
    const visitor = await member();
    const cases: Array<[string, string]> = [
      ["Details on https://example.org/jobs page.", guidelineMessages.link],
      ["Details on glassdoor.com too, sadly.", guidelineMessages.link],
      ["Write to someone@example.org about it.", guidelineMessages.email],
      ["Ring 0171 234 5678 to complain.", guidelineMessages.phone],
    ];
    for (const [text, message] of cases) {
      const refused = await answer(await postEntries(visitor, target(), companyReviewEntries(review({ text }))));
      assert.equal(refused.status, 400, text);
      assert.equal(refused.message, message, text);
      assert.match(refused.html, new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")), "the text typed is not kept");
    }
    // Years are not phone numbers.
    const accepted = await postEntries(
      visitor,
      target(),
      companyReviewEntries(review({ text: "Worked there 2019-2023, good years." })),
    );
    await accepted.body?.cancel();
    assert.equal(accepted.status, 302);
  });

  it("answers 404 'No Company Found' for a review of an unknown company", async () => {
    const visitor = await member();
    const refused = await answer(
      await postEntries(visitor, paths.reviewCompany(999_999), companyReviewEntries(review())),
    );
    assert.equal(refused.status, 404);
    assert.match(refused.html, new RegExp(`<h1>${messages.noCompanyFound}</h1>`));
  });
});

describe("adding a manager over HTTP", () => {
  it("refuses a manager without direct reports, or with a LinkedIn address elsewhere", async () => {
    const visitor = await member();
    const company = facts.busyCompany.id;
    const manager = managerDraft("Quinn");
    const noReports = await answer(
      await postEntries(visitor, paths.addManager(company), [
        ...managerEntries(manager, "No"),
        ...managerReviewEntries(review({ tags: ["Fair"] })),
      ]),
    );
    assert.equal(noReports.status, 400);
    assert.equal(noReports.message, m.directReports);
    const elsewhere = await answer(
      await postEntries(visitor, paths.addManager(company), [
        ...managerEntries({ ...manager, linkedin_url: "facebook.com/quinn" }),
        ...managerReviewEntries(review({ tags: ["Fair"] })),
      ]),
    );
    assert.equal(elsewhere.status, 400);
    assert.equal(elsewhere.message, m.linkedin);
    const rows = await store.db
      .selectFrom("managers")
      .select("id")
      .where("last_name", "=", manager.last_name)
      .execute();
    assert.equal(rows.length, 0);
  });

  it("adds a manager with the company link and the first review; the LinkedIn address normalised", async () => {
    const visitor = await member();
    const manager = managerDraft("Morgan");
    const response = await postEntries(visitor, paths.addManager(facts.busyCompany.id), [
      ...managerEntries(manager),
      ...managerReviewEntries(review({ tags: managerTags.slice(0, 5) })),
    ]);
    await response.body?.cancel();
    assert.equal(response.status, 302);
    const id = Number(response.headers.get("location")?.match(/^\/manager-profile\/(\d+)$/)?.[1]);
    const row = await store.db.selectFrom("managers").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    assert.equal(row.linkedin_url, `https://${manager.linkedin_url}`);
    assert.equal(row.country, facts.busyCompany.country);
    assert.equal(row.review_count, 1);
    const link = await store.db.selectFrom("manager_companies").selectAll().where("manager_id", "=", id).execute();
    assert.deepEqual(
      link.map((entry) => entry.company_id),
      [facts.busyCompany.id],
    );
  });

  it("on /manager/addAlone, requires a company chosen or added, and checks the new company's fields", async () => {
    const visitor = await member();
    const manager = managerDraft("Drew");
    const entries = [...managerEntries(manager), ...managerReviewEntries(review({ tags: ["Fair"] }))];
    const none = await answer(await postEntries(visitor, paths.addManagerAlone(), entries));
    assert.equal(none.status, 400);
    assert.equal(none.message, m.noCompany);

    const company = companyDraft("Alone Inc");
    const incomplete = await answer(
      await postEntries(visitor, paths.addManagerAlone(), [
        ["company_id", "new"],
        ...without(companyEntries(company, "company_"), "company_website"),
        ...entries,
      ]),
    );
    assert.equal(incomplete.status, 400);
    assert.equal(incomplete.message, m.website);
    assert.ok(markedForMessageBox(incomplete.html, "company_website"));
    assert.equal(await companiesNamed(company.name), 0);

    // The company's city and the manager's city are two fields: each refusal shows on its own.
    const twoCities = await answer(
      await postEntries(visitor, paths.addManagerAlone(), [
        ["company_id", "new"],
        ...without(companyEntries(company, "company_"), "company_city"),
        ...without(entries, "linkedin_url"),
      ]),
    );
    assert.equal(twoCities.status, 400);
    assert.equal(twoCities.message, correctFields);
    assert.equal(fieldError(twoCities.html, "company_city"), m.required);
    assert.equal(fieldError(twoCities.html, "city"), null, "the company's city refusal shows on the manager's city");
    assert.equal(fieldError(twoCities.html, "linkedin_url"), m.linkedin);

    const added = await postEntries(visitor, paths.addManagerAlone(), [
      ["company_id", "new"],
      ...companyEntries(company, "company_"),
      ...entries,
      ["department", "Finance"],
    ]);
    await added.body?.cancel();
    assert.equal(added.status, 302);
    assert.equal(await companiesNamed(company.name), 1);
  });

  it("answers 404 'No Company Found' for a manager of an unknown company, and adds nobody", async () => {
    const visitor = await member();
    const manager = managerDraft();
    const refused = await answer(
      await postEntries(visitor, paths.addManager(999_999), [
        ...managerEntries(manager),
        ...managerReviewEntries(review({ tags: ["Fair"] })),
      ]),
    );
    assert.equal(refused.status, 404);
    assert.match(refused.html, new RegExp(`<h1>${messages.noCompanyFound}</h1>`));
    const rows = await store.db
      .selectFrom("managers")
      .select("id")
      .where("last_name", "=", manager.last_name)
      .execute();
    assert.equal(rows.length, 0);
  });
});

describe("reviewing a manager over HTTP", () => {
  it("keeps exactly one of 20 simultaneous identical reviews by one person; the others answer 409", async () => {
    const visitor = await member();
    const managerId = facts.manager.id;
    const before = await managerReviewCount(managerId);
    const entries = managerReviewEntries(review({ tags: ["Fair"], text: "Fair and steady, every single week." }));
    const statuses = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const response = await postEntries(visitor, paths.reviewManager(managerId), entries);
        const html = await response.text();
        return response.status === 409 ? `409 ${alertText(html)}` : String(response.status);
      }),
    );
    assert.deepEqual(statuses.sort(), ["302", ...Array.from({ length: 19 }, () => `409 ${m.alreadyReviewed}`)].sort());
    assert.equal(await managerReviewCount(managerId), before + 1);
    // The page says so before anyone types.
    const page = await visitor.get(paths.reviewManager(managerId));
    assert.equal(alertText(await page.text()), m.alreadyReviewed);
  });

  it("answers 404 'No Manager Profile Found' for a review of an unknown manager", async () => {
    const visitor = await member();
    const refused = await answer(
      await postEntries(visitor, paths.reviewManager(999_999), managerReviewEntries(review({ tags: ["Fair"] }))),
    );
    assert.equal(refused.status, 404);
    assert.match(refused.html, new RegExp(`<h1>${messages.noManagerProfileFound}</h1>`));
  });

  it("limits reviews from one address to 30 an hour (429 with Retry-After)", async () => {
    const visitor = await member();
    const target = paths.reviewCompany(facts.quietCompany.id);
    for (let attempt = 1; attempt <= 30; attempt += 1) {
      const response = await postEntries(visitor, target, []);
      await response.body?.cancel();
      assert.equal(response.status, 400, `attempt ${attempt}`);
    }
    const limited = await postEntries(visitor, target, companyReviewEntries(review()));
    await limited.body?.cancel();
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get("retry-after")) > 0);
  });

  it("counts reviews sent to the JSON API against the same 30 an hour as the forms", async () => {
    const visitor = await member();
    const api = `/api/v1/companies/${facts.quietCompany.id}/reviews`;
    const json = { ...sameOrigin(server.baseURL), "Content-Type": "application/json" };
    for (let attempt = 1; attempt <= 15; attempt += 1) {
      const form = await postEntries(visitor, paths.reviewCompany(facts.quietCompany.id), []);
      await form.body?.cancel();
      assert.equal(form.status, 400, `form attempt ${attempt}`);
      const sent = await visitor.request(api, { method: "POST", headers: json, body: "{}" });
      await sent.body?.cancel();
      assert.equal(sent.status, 400, `API attempt ${attempt}`);
    }
    const byApi = await visitor.request(api, { method: "POST", headers: json, body: "{}" });
    await byApi.body?.cancel();
    assert.equal(byApi.status, 429);
    assert.ok(Number(byApi.headers.get("retry-after")) > 0);
    const byForm = await postEntries(visitor, paths.reviewCompany(facts.quietCompany.id), []);
    await byForm.body?.cancel();
    assert.equal(byForm.status, 429);
  });
});

describe("the contact form over HTTP", () => {
  async function outboxSources(): Promise<string[]> {
    const names = await fs.readdir(server.outboxDir).catch(() => [] as string[]);
    return Promise.all(names.map((name) => fs.readFile(path.join(server.outboxDir, name), "utf8")));
  }

  it("requires a subject and a message, and keeps what was typed", async () => {
    const visitor = new Visitor(server.baseURL, newClientIp());
    const refused = await answer(
      await visitor.post(paths.feedback(), { email: "me@example.com", subject: " ", message: "", comment: "kept" }),
    );
    assert.equal(refused.status, 400);
    assert.match(refused.html, new RegExp(feedbackMessages.subjectRequired));
    assert.match(refused.html, new RegExp(feedbackMessages.messageRequired));
    assert.match(refused.html, /value="me@example.com"/);
    assert.match(refused.html, />kept<\/textarea>/);
  });

  it("sends the message to CONTACT_EMAIL with the subject, and answers 'Your message has been sent!'", async () => {
    const visitor = new Visitor(server.baseURL, newClientIp());
    const subject = `Question ${process.pid} ${Date.now()}`;
    const response = await visitor.post(paths.feedback(), {
      email: "",
      subject,
      message: "Is the data real?",
      comment: "",
    });
    assert.equal(response.status, 200);
    assert.match(await response.text(), new RegExp(feedbackMessages.sent));
    const mail = await waitForMail(server.outboxDir, { to: contactEmail, subject: new RegExp(subject) });
    assert.equal(mail.subject, `[Candor feedback] ${subject}`);
    assert.match(mail.text, /Is the data real\?/);
  });

  it("refuses CR/LF in the subject, so no header can be injected into the mail", async () => {
    const visitor = new Visitor(server.baseURL, newClientIp());
    for (const subject of [
      "Hello\r\nBcc: victim@example.com",
      "Hello\nBcc: victim@example.com",
      "Hello\rBcc: victim@example.com",
    ]) {
      const refused = await answer(
        await visitor.post(paths.feedback(), { email: "", subject, message: "Injected?", comment: "" }),
      );
      assert.equal(refused.status, 400, JSON.stringify(subject));
      assert.match(refused.html, new RegExp(m.singleLine));
    }
    // Nor through the reply address.
    const viaEmail = await visitor.post(paths.feedback(), {
      email: "me@example.com\r\nBcc: victim@example.com",
      subject: "Hello",
      message: "Injected?",
      comment: "",
    });
    await viaEmail.body?.cancel();
    assert.equal(viaEmail.status, 400);
    for (const source of await outboxSources()) {
      const head = source.slice(0, source.search(/\r?\n\r?\n/));
      assert.doesNotMatch(head, /^bcc:/im);
      assert.doesNotMatch(source, /victim@example\.com/);
    }
  });

  it("answers a filled honeypot as if sent, and sends nothing", async () => {
    const visitor = new Visitor(server.baseURL, newClientIp());
    const subject = `Bot ${process.pid} ${Date.now()}`;
    const response = await visitor.post(paths.feedback(), {
      email: "",
      subject,
      message: "Cheap pills",
      comment: "",
      website: "spam.example",
    });
    assert.equal(response.status, 200);
    assert.match(await response.text(), new RegExp(feedbackMessages.sent));
    const mails = await readOutbox(server.outboxDir);
    assert.deepEqual(
      mails.filter((mail) => mail.subject.includes(subject)),
      [],
    );
  });

  it("limits messages from one address to 5 an hour", async () => {
    const visitor = new Visitor(server.baseURL, newClientIp());
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const response = await visitor.post(paths.feedback(), { email: "", subject: "", message: "", comment: "" });
      await response.body?.cancel();
      assert.equal(response.status, 400, `attempt ${attempt}`);
    }
    const limited = await visitor.post(paths.feedback(), { email: "", subject: "Hi", message: "Hello", comment: "" });
    await limited.body?.cancel();
    assert.equal(limited.status, 429);
  });

  it("answers 'Your message could not be sent, please try again.' when the mail server cannot be reached", async () => {
    // A second server whose mail goes to an SMTP port nobody listens on.
    const failing = await startServer("sqlite", {
      env: { DEMO_DATA: "never", TRUSTED_PROXIES: "127.0.0.1", SMTP_URL: "smtp://127.0.0.1:1" },
    });
    try {
      const visitor = new Visitor(failing.baseURL, newClientIp());
      const refused = await answer(
        await visitor.post(paths.feedback(), { email: "", subject: "Hello", message: "Anyone there?", comment: "" }),
      );
      assert.equal(refused.status, 502);
      assert.equal(refused.message, feedbackMessages.failed);
      assert.match(refused.html, /Anyone there\?/, "the message typed is not kept");
    } finally {
      assert.equal(await failing.stop(), 0);
    }
    assert.match(failing.output(), /feedback mail failed/);
  });
});
