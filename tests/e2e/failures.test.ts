import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import type { Browser } from "playwright-core";
import { type DatabaseHandle as Store, openDatabase } from "#app/db/connection.server.ts";
import { unavailableRetryAfterSeconds } from "#app/db/unavailable.server.ts";
import { failureDetail, failureText } from "#app/lib/failures.ts";
import { contributionMessages, failureMessages, messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { closeVisit, launchBrowser, openVisit, waitForHydration } from "./support/browser.ts";
import { companyReviewEntries, postEntries, shareCookies } from "./support/contribute.ts";
import { type DemoFacts, readDemoFacts } from "./support/demo-facts.ts";
import { alertText, newClientIp, newEmail, Visitor } from "./support/http.ts";
import { type Engine, type RunningServer, startServer } from "../support/server.ts";

// What a reader is told when the data a page needs cannot be read or written: the spec's error catalogue ("Error
// loading companies: {message}" and its kin), with a message of ours and never the database's own words. The faults
// are real: a table the request needs is renamed away while the server runs, and renamed back afterwards.

const password = "a long and private passphrase";
const goodText = "Clear goals, fair reviews and a team that helps each other out.";

function describeFailures(engine: Engine): void {
  describe(`failures said in the reader's words on ${engine}`, () => {
    let server: RunningServer;
    let store: Store;
    let facts: DemoFacts;
    let browser: Browser;

    before(async () => {
      server = await startServer(engine);
      store = openDatabase(server.databaseUrl, { poolSize: 1 });
      facts = await readDemoFacts(server.databaseUrl);
      browser = await launchBrowser();
    });

    after(async () => {
      await browser?.close();
      await store?.close();
      if (!server) return;
      assert.equal(await server.stop(), 0, `the server did not shut down cleanly:\n${server.output()}`);
    });

    /** Runs `check` while `table` is renamed away, then puts it back (also when the check fails). */
    async function without(table: string, check: () => Promise<void>): Promise<void> {
      await sql`ALTER TABLE ${sql.table(table)} RENAME TO ${sql.table(`${table}_away`)}`.execute(store.db);
      try {
        await check();
      } finally {
        await sql`ALTER TABLE ${sql.table(`${table}_away`)} RENAME TO ${sql.table(table)}`.execute(store.db);
      }
    }

    async function page(visitor: Visitor, path: string): Promise<{ status: number; html: string }> {
      const response = await visitor.get(path);
      return { status: response.status, html: await response.text() };
    }

    const unexpected = `<h1>${messages.unexpectedError}</h1>`;
    const somethingWrong = (kind: Parameters<typeof failureText>[0]) => failureText(kind, "other");

    it("says which data could not be loaded on the search, company and manager pages, without a stack or SQL", async () => {
      const visitor = new Visitor(server.baseURL, newClientIp());
      const { busyCompany, manager } = facts;
      const country = busyCompany.country;
      const cases = [
        { table: "companies", path: paths.search({ country, q: "Zyx" }), says: failureMessages.search },
        { table: "companies", path: paths.search({ country }), says: somethingWrong("companies") },
        { table: "companies", path: paths.company(busyCompany.id), says: somethingWrong("companies") },
        {
          table: "managers",
          path: paths.search({ kind: "manager", country, q: "Zyx" }),
          says: somethingWrong("managers"),
        },
        { table: "managers", path: paths.manager(manager.id), says: somethingWrong("managers") },
      ];
      for (const { table, path, says } of cases) {
        await without(table, async () => {
          const { status, html } = await page(visitor, path);
          assert.equal(status, 500, path);
          assert.ok(html.includes(unexpected), `${path} shows the error page`);
          assert.equal(alertText(html), says, path);
          // The search's own words take no reason: it follows them, in a paragraph of its own.
          if (says === failureMessages.search)
            assert.ok(html.includes(`<p>${contributionMessages.somethingWrong}</p>`));
          assert.doesNotMatch(html, /no such table|does not exist|_away|SELECT|at .*\.ts:\d+/i, path);
        });
        // Once the table is back the same address answers (the failure was not kept by the page cache).
        const { status } = await page(visitor, path);
        assert.equal(status, 200, `${path} after the table is back`);
      }
      assert.equal(somethingWrong("companies"), `Error loading companies: ${contributionMessages.somethingWrong}`);
    });

    it("says when who is signed in cannot be read: Error context; signin", async () => {
      const visitor = new Visitor(server.baseURL, newClientIp());
      await visitor.signUp(newEmail("session"), password);
      await without("sessions", async () => {
        const { status, html } = await page(visitor, paths.search());
        assert.equal(status, 500);
        assert.equal(alertText(html), `${failureMessages.signin}: ${contributionMessages.somethingWrong}`);
      });
      assert.equal((await page(visitor, paths.search())).status, 200);
    });

    it("keeps what was typed when a review cannot be stored, and says Error inserting data", async () => {
      const visitor = new Visitor(server.baseURL, newClientIp());
      await visitor.signUp(newEmail("insert"), password);
      const target = paths.reviewCompany(facts.quietCompany.id);
      const before = await store.db
        .selectFrom("pending_reviews")
        .select(sql<number>`count(*)`.as("n"))
        .execute();
      await without("pending_reviews", async () => {
        const response = await postEntries(visitor, target, companyReviewEntries({ tags: ["Stable"], text: goodText }));
        const html = await response.text();
        assert.equal(response.status, 500);
        assert.equal(alertText(html), failureText("insert", "other"));
        assert.ok(html.includes(goodText), "the review text is still in the form");
        assert.ok(!html.includes(unexpected), "the form is shown again, not the error page");
      });
      const afterwards = await store.db
        .selectFrom("pending_reviews")
        .select(sql<number>`count(*)`.as("n"))
        .execute();
      assert.equal(Number(afterwards[0]!.n), Number(before[0]!.n), "nothing of the failed write was stored");
      // The same review goes through once the database is whole again.
      const retry = await postEntries(visitor, target, companyReviewEntries({ tags: ["Stable"], text: goodText }));
      await retry.body?.cancel();
      assert.equal(retry.status, 302);
    });

    if (engine === "postgres")
      it("answers 503 with Retry-After and keeps what was typed when the database goes away during a write", async () => {
        const visitor = new Visitor(server.baseURL, newClientIp());
        await visitor.signUp(newEmail("away"), password);
        // The connection that writes the review is ended by the server in the middle of the write, as a restart of
        // PostgreSQL would end it; the session was read before, on another query.
        await sql`CREATE FUNCTION lose_connection() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(5); RETURN NEW; END $$`.execute(
          store.db,
        );
        await sql`CREATE TRIGGER lose_connection BEFORE INSERT ON pending_reviews
          FOR EACH ROW EXECUTE FUNCTION lose_connection()`.execute(store.db);
        try {
          const response = await postEntries(
            visitor,
            paths.reviewCompany(facts.quietCompany.id),
            companyReviewEntries({ tags: ["Stable"], text: goodText }),
          );
          const html = await response.text();
          assert.equal(response.status, 503);
          assert.equal(response.headers.get("retry-after"), String(unavailableRetryAfterSeconds));
          assert.equal(alertText(html), failureText("insert", "unavailable"));
          assert.ok(html.includes(goodText), "the review text is still in the form");
          assert.doesNotMatch(html, /terminating connection|administrator command/i);
        } finally {
          await sql`DROP TRIGGER lose_connection ON pending_reviews`.execute(store.db);
          await sql`DROP FUNCTION lose_connection()`.execute(store.db);
        }
      });

    it("says in the page when live search results or company suggestions cannot be loaded", async () => {
      const { busyCompany } = facts;
      const visit = await openVisit(browser, server.baseURL);
      try {
        const { page } = visit;
        await page.goto(paths.search({ country: busyCompany.country }));
        await waitForHydration(page);
        await without("companies", async () => {
          await page.getByRole("searchbox").fill("Qwx");
          await page.getByRole("alert").filter({ hasText: failureMessages.search }).waitFor();
        });
        assert.equal(await page.getByText(failureMessages.search, { exact: true }).count(), 1);
        // Ours follows apart, as on the search page the server renders.
        assert.equal(
          await page.getByRole("alert").getByText(failureDetail("search", "other")!, { exact: true }).count(),
          1,
        );

        const visitor = new Visitor(server.baseURL, newClientIp());
        await visitor.signUp(newEmail("suggest"), password);
        await shareCookies(visitor, visit.context);
        await page.goto(paths.addCompany(busyCompany.country));
        await waitForHydration(page);
        await without("companies", async () => {
          await page.getByLabel("Company name").fill("Qwxyz Holdings");
          await page
            .getByRole("alert")
            .filter({ hasText: failureText("suggestions", "other") })
            .waitFor();
        });
      } finally {
        // The failed API reads are answered 500 on purpose: the browser reports each as a failed resource.
        const problems = await closeVisit(visit);
        assert.deepEqual(
          problems.filter((problem) => !problem.includes("status of 500")),
          [],
        );
      }
    });
  });
}

describeFailures("sqlite");
describeFailures("postgres");
