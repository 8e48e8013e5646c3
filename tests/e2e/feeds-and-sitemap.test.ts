import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import zlib from "node:zlib";
import { openDatabase } from "#app/db/connection.server.ts";
import { paths } from "#app/lib/paths.ts";
import { companyReviewEntries, postEntries } from "./support/contribute.ts";
import { readDemoFacts } from "./support/demo-facts.ts";
import { newClientIp, newEmail, Visitor } from "./support/http.ts";
import { publishAtOnce, startServer } from "../support/server.ts";
import { xmlProblems } from "../support/xml-validation.ts";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// Search engines and feed readers, over HTTP: robots.txt names the sitemap index, the index and its gzip files
// validate against the sitemap protocol's schemas and list every company of the seeded database, forms say noindex,
// and a company's Atom feed validates against RFC 4287's grammar and changes only when a batch of three authors is
// published (PUBLISH_INTERVAL=0 publishes as soon as one may be).
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-e2e-feeds-"));
const server = await startServer("sqlite", {
  env: {
    ...publishAtOnce(dir),
    PUBLISH_MIN_AUTHORS: "3",
    MANAGER_MIN_REVIEWS: "3",
    DEMO_DATA: "always",
    TRUSTED_PROXIES: "127.0.0.1",
  },
});
const facts = await readDemoFacts(server.databaseUrl);
const store = openDatabase(server.databaseUrl, { poolSize: 1 });

after(async () => {
  await store.close();
  assert.equal(await server.stop(), 0, `the server did not shut down cleanly on SIGTERM:\n${server.output()}`);
  fs.rmSync(dir, { recursive: true, force: true });
});

const reader = new Visitor(server.baseURL, newClientIp());
const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]!);

describe("search engines", () => {
  it("read a robots.txt that names the sitemap index by its absolute address", async () => {
    const robots = await (await reader.get("/robots.txt")).text();
    const sitemap = /^Sitemap: (\S+)$/m.exec(robots)?.[1];
    assert.equal(sitemap, `${server.baseURL}${paths.sitemap()}`);
    assert.match(robots, /^Disallow: \/account$/m);
  });

  it("find every company, and every manager who shows reviews, in sitemap files that validate", async () => {
    const index = await reader.get(paths.sitemap());
    assert.equal(index.status, 200);
    assert.match(index.headers.get("content-type") ?? "", /^application\/xml/);
    const indexXml = await index.text();
    assert.equal(xmlProblems(indexXml, "siteindex.xsd"), "");
    // The schema is live: an index without its files does not validate.
    assert.notEqual(xmlProblems(indexXml.replace(/<sitemap>.*<\/sitemap>/g, ""), "siteindex.xsd"), "");

    const listed: string[] = [];
    for (const file of locs(indexXml)) {
      assert.ok(file.startsWith(server.baseURL), file);
      const response = await reader.get(file.slice(server.baseURL.length));
      assert.equal(response.status, 200, file);
      assert.equal(response.headers.get("content-type"), "application/gzip");
      const xml = zlib.gunzipSync(Buffer.from(await response.arrayBuffer())).toString("utf8");
      assert.equal(xmlProblems(xml, "sitemap.xsd"), "", file);
      const pages = locs(xml);
      assert.ok(pages.length > 0 && pages.length <= 50_000, `${file}: ${pages.length} addresses`);
      listed.push(...pages);
    }
    const companies = await store.db.selectFrom("companies").select("id").execute();
    const managers = await store.db.selectFrom("managers").select("id").where("review_count", ">=", 3).execute();
    assert.ok(companies.length > 10 && managers.length > 0);
    assert.deepEqual(
      listed.sort(),
      [
        ...companies.map((row) => `${server.baseURL}${paths.company(row.id)}`),
        ...managers.map((row) => `${server.baseURL}${paths.manager(row.id)}`),
      ].sort(),
    );
    assert.equal((await reader.get(paths.sitemapFile("companies", 99))).status, 404);
  });

  it("are told not to index forms and the account, and may index company pages", async () => {
    for (const path of [paths.signIn(), paths.reviewCompany(facts.busyCompany.id), paths.account()]) {
      const response = await reader.get(path);
      await response.body?.cancel();
      assert.equal(response.headers.get("x-robots-tag"), "noindex", path);
    }
    const page = await reader.get(paths.company(facts.busyCompany.id));
    await page.body?.cancel();
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("x-robots-tag"), null);
  });
});

describe("a company's feed", () => {
  it("is offered on its page, validates as Atom 1.0, and changes only when a batch is published", async () => {
    const company = facts.quietCompany.id;
    const html = await (await reader.get(paths.company(company))).text();
    assert.ok(html.includes(`<link rel="alternate" type="application/atom+xml"`), "no feed link in the head");
    assert.ok(html.includes(`href="${paths.feed("company", company)}"`), "no link to the feed");

    const read = async () => {
      const response = await reader.get(paths.feed("company", company));
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type") ?? "", /^application\/atom\+xml/);
      return { cache: response.headers.get("x-cache"), xml: await response.text() };
    };
    const before = await read();
    assert.equal(xmlProblems(before.xml, "atom.rng"), "");
    assert.equal((before.xml.match(/<entry>/g) ?? []).length, 0);
    assert.equal((await read()).cache, "hit");

    const review = { tags: ["Fair Pay"], text: "Feeds tell me when something new is said here." };
    const authors: Visitor[] = [];
    for (let i = 0; i < 3; i++) {
      const author = new Visitor(server.baseURL, newClientIp());
      await author.signUp(newEmail("feed"), "a long and private passphrase");
      authors.push(author);
    }
    for (const author of authors.slice(0, 2)) {
      const sent = await postEntries(author, paths.reviewCompany(company), companyReviewEntries(review));
      await sent.body?.cancel();
      assert.equal(sent.status, 302);
    }
    // Two of three authors: nothing is published, and the kept feed is still the one served.
    const waiting = await read();
    assert.deepEqual(waiting, { cache: "hit", xml: before.xml });

    const third = await postEntries(authors[2]!, paths.reviewCompany(company), companyReviewEntries(review));
    await third.body?.cancel();
    assert.equal(third.status, 302);
    const published = await read();
    assert.equal(published.cache, "miss");
    assert.equal((published.xml.match(/<entry>/g) ?? []).length, 3);
    assert.equal(xmlProblems(published.xml, "atom.rng"), "");
    // Dated to the month, never the day or the time of the batch.
    const month = new Date().toISOString().slice(0, 7);
    assert.equal((published.xml.match(new RegExp(`<updated>${month}-01T00:00:00Z</updated>`, "g")) ?? []).length, 4);

    const json = await reader.get(paths.feed("company", company, "json"));
    const feed = (await json.json()) as { items: unknown[]; feed_url: string };
    assert.equal(feed.items.length, 3);
    assert.equal(feed.feed_url, `${server.baseURL}${paths.feed("company", company, "json")}`);
  });

  it("answers 404 for a feed of nothing", async () => {
    for (const path of [
      "/feeds/company/999999.atom",
      "/feeds/planet/1.atom",
      "/feeds/country/XX.atom",
      "/feeds/company/1.rss",
    ]) {
      const response = await reader.get(path);
      await response.body?.cancel();
      assert.equal(response.status, 404, path);
    }
  });
});
